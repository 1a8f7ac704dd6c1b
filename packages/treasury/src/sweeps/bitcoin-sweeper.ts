import { bitcoinNetwork } from "@mp/bitcoin-protocol";
import { BTC_ASSET, bitcoinRpc } from "@mp/chain-bitcoin";
import { type ChainConfig, type ChainId, NATIVE_ASSETS } from "@mp/core";
import type { Queryable } from "@mp/db";
import { address as bitcoinAddress } from "bitcoinjs-lib";
import { insertAttempt } from "../attempt-store.ts";
import { bitcoinFeeRate, estimateVsize, feeFor, outputBytes, P2WPKH_DUST } from "../bitcoin/bitcoin-fees.ts";
import { createBitcoinSender } from "../bitcoin/bitcoin-sender.ts";
import { type P2wpkhInput, signP2wpkh } from "../bitcoin/sign-p2wpkh.ts";
import type { LeasedChainLoop } from "../chain-loop.ts";
import { justStored } from "../send-pipeline.ts";
import { requestSend } from "../send-requests.ts";
import { ChainSweepPass } from "./chain-sweep-pass.ts";
import { sweepThreshold } from "./sweep-config.ts";
import {
  broadcastStored,
  createSweeperLoop,
  finishSettledSweeps,
  type SweeperOptions,
  sweepSendKey,
} from "./sweep-send.ts";
import { insertSweep, markSweeping } from "./sweep-store.ts";

/** The Bitcoin chains to sweep are `chains` (their configs: node URL, network). */
export type BitcoinSweeperOptions = SweeperOptions;

/** Deposit outputs one sweep transaction spends: far below the standard size limit (as the sender's inputs). */
const MAX_INPUTS = 200;

/** A confirmed deposit output no sweep has spent, at one of our deposit addresses. */
interface DepositOutput {
  destinationId: string;
  address: string;
  addressKey: string;
  derivationPath: string;
  txid: string;
  vout: number;
  amountRaw: bigint;
}

/**
 * The Bitcoin sweeper (issue 14 "Sweeps", "Bitcoin in batched sweeps"), run by the signer. Each
 * pass gathers the confirmed deposit outputs of every deposit address whose unswept deposits reach
 * the BTC threshold into ONE transaction: inputs from many addresses, each signed with its address's
 * deposit key (createDepositKeys), one output to the treasury's receive address, the fee at the
 * Bitcoin sender's rate (estimatesmartfee, its floor). In one fenced transaction, before broadcast:
 * per address a treasury_sweeps row (covered_raw = its outputs, amount_raw = that less its share
 * of the fee, by its inputs) with its own send (purpose sweep), and one attempt carrying all those
 * sends (treasury_attempt_sends) whose guard lists the inputs. The guard is what keeps an output
 * from being spent twice: an output in the guard of a signed, broadcast or mined attempt is never
 * selected again (as the sender's coins are reserved).
 *
 * The send pipeline's Bitcoin sender broadcasts it again after a crash, confirms it, watches it
 * for reorgs and, the output being named by no send, records it as the treasury's own coin
 * (treasury_utxos) once mined: the treasury spends swept coins. fee_paid_raw = each row's share.
 */
export function createBitcoinSweeper(options: BitcoinSweeperOptions): LeasedChainLoop {
  const treasury = options.treasuryKeys.bitcoin(0, 0).address;
  const chains = new Map(options.chains.map((c) => [c.chain, c]));
  return createSweeperLoop(options, (run) =>
    new BitcoinChainSweep(chains.get(run.chain) as ChainConfig, treasury, options, run).run(),
  );
}

class BitcoinChainSweep extends ChainSweepPass<ChainConfig, BitcoinSweeperOptions> {
  async run(): Promise<void> {
    // Each row's share of the one transaction's fee, fixed when it was signed.
    await finishSettledSweeps(this.context, async (sweep) => sweep.coveredRaw - sweep.amountRaw);
    const threshold = sweepThreshold(this.config, NATIVE_ASSETS[this.chain], true);
    const byAddress = new Map<string, DepositOutput[]>();
    for (const output of await unsweptDepositOutputs(this.options.db, this.chain, MAX_INPUTS * 5)) {
      byAddress.set(output.destinationId, [...(byAddress.get(output.destinationId) ?? []), output]);
    }
    const inputs: DepositOutput[] = [];
    for (const outputs of byAddress.values()) {
      const total = outputs.reduce((sum, o) => sum + o.amountRaw, 0n);
      // An address's outputs go together or not at all: its row covers all it holds.
      if (total < threshold || inputs.length + outputs.length > MAX_INPUTS) continue;
      inputs.push(...outputs);
    }
    if (inputs.length > 0) await this.sweep(inputs);
  }

  /** Signs the batch with the deposit keys, stores rows, sends and attempt, then broadcasts. */
  private async sweep(inputs: DepositOutput[]): Promise<void> {
    const network = bitcoinNetwork(this.runtime.network);
    const rpc = bitcoinRpc(this.runtime, { fetch: this.options.fetch, logger: this.logger });
    const rate = await bitcoinFeeRate(rpc, this.runtime);
    const script = bitcoinAddress.toOutputScript(this.treasury, network.encoding);
    const fee = feeFor(estimateVsize(inputs.length, 1, outputBytes(script)), rate);
    const total = inputs.reduce((sum, i) => sum + i.amountRaw, 0n);
    if (total - fee < P2WPKH_DUST) return;
    const signing: P2wpkhInput[] = [];
    for (const input of inputs) {
      const key = this.options.depositKeys.forPath("bitcoin", input.derivationPath);
      if (key.address !== input.address) {
        // Never sign for an address whose key we do not derive: the destination row and the mnemonic disagree.
        this.logger.error({ address: input.address }, "deposit key does not match its address: batch not signed");
        return;
      }
      signing.push({ ...input, key });
    }
    const signed = signP2wpkh(signing, [{ script, value: total - fee }], network.encoding);
    const shares = feeShares(inputs, fee);
    const sender = createBitcoinSender({
      config: this.runtime,
      keys: this.options.treasuryKeys,
      db: this.options.db,
      logger: this.logger,
      ...(this.options.fetch === undefined ? {} : { fetch: this.options.fetch }),
    });
    const stored = await this.fenced(async (tx) => {
      const orders: Array<{ id: string }> = [];
      for (const [destinationId, share] of shares) {
        const outputs = inputs.filter((i) => i.destinationId === destinationId);
        const first = outputs[0] as DepositOutput;
        const covered = outputs.reduce((sum, o) => sum + o.amountRaw, 0n);
        const amountRaw = covered - share;
        if (amountRaw <= 0n) throw new Error(`the fee share of ${first.address} exceeds its deposits`);
        const id = await insertSweep(tx, {
          chain: this.chain,
          candidate: { ...first, asset: BTC_ASSET, unsweptRaw: covered },
          treasuryAddress: this.treasury,
          amountRaw,
          state: "ready",
        });
        // Another sweep of the address is open: nothing of this batch may be stored (rolled back).
        if (id === null) throw new Error(`${first.address} has an open sweep: batch not stored`);
        const { send } = await requestSend(tx, {
          chain: this.chain,
          asset: BTC_ASSET,
          to: this.treasury,
          amountRaw,
          purpose: "sweep",
          idempotencyKey: sweepSendKey(id),
        });
        await markSweeping(tx, id, send.id);
        // No outputIndex: the one output pays the treasury itself, so the sender records it as our coin.
        orders.push({ id: send.id });
      }
      const attempt = {
        txHash: signed.getId(),
        raw: signed.toHex(),
        from: inputs[0]?.address ?? this.treasury,
        guard: { inputs: inputs.map((i) => ({ txid: i.txid, vout: i.vout })) },
        fee: { feeRate: rate.toString(), fee: fee.toString() },
        orders,
      };
      const id = await insertAttempt(tx, this.chain, attempt, null);
      return { ...attempt, id };
    });
    this.logger.info(
      { txHash: stored.txHash, addresses: shares.size, inputs: inputs.length, fee: fee.toString() },
      "bitcoin sweep signed and stored",
    );
    await broadcastStored(sender, justStored(this.chain, stored, null), this.logger);
  }
}

/** The fee split by inputs (each input costs the same bytes); the rounding remainder to the first address. */
function feeShares(inputs: readonly DepositOutput[], fee: bigint): Map<string, bigint> {
  const counts = new Map<string, bigint>();
  for (const input of inputs) counts.set(input.destinationId, (counts.get(input.destinationId) ?? 0n) + 1n);
  const n = BigInt(inputs.length);
  const shares = new Map([...counts].map(([id, count]) => [id, (fee * count) / n]));
  const remainder = fee - [...shares.values()].reduce((sum, s) => sum + s, 0n);
  const [firstId] = shares.keys();
  if (firstId !== undefined) shares.set(firstId, (shares.get(firstId) ?? 0n) + remainder);
  return shares;
}

/**
 * Confirmed deposit outputs (position vout:N) at addresses with no open BTC sweep, that no live
 * attempt spends (in the guard of a signed, broadcast or mined attempt: an open or landed sweep).
 */
async function unsweptDepositOutputs(q: Queryable, chain: ChainId, limit: number): Promise<DepositOutput[]> {
  const { rows } = await q.query<{
    destination_id: string;
    address: string;
    address_key: string;
    derivation_path: string;
    tx_hash: string;
    vout: number;
    amount_raw: string;
  }>(
    `SELECT d.destination_id, t.address, t.address_key, t.derivation_path, d.tx_hash,
            split_part(d.position, ':', 2)::int AS vout, d.amount_raw::text AS amount_raw
       FROM deposits d JOIN destinations t ON t.id = d.destination_id
      WHERE d.chain = $1 AND d.status = 'CONFIRMED' AND d.asset = $2 AND d.position LIKE 'vout:%'
        AND NOT EXISTS (SELECT 1 FROM treasury_sweeps o
                         WHERE o.destination_id = d.destination_id AND o.asset = d.asset
                           AND o.state IN ('topping_up', 'ready', 'sweeping'))
        AND NOT EXISTS (SELECT 1 FROM treasury_attempts a
                         WHERE a.chain = $1 AND a.state IN ('signed', 'broadcast', 'mined')
                           AND a.guard -> 'inputs' @> jsonb_build_array(jsonb_build_object(
                                 'txid', d.tx_hash, 'vout', split_part(d.position, ':', 2)::int)))
      ORDER BY d.destination_id, d.created_at, d.id
      LIMIT $3`,
    [chain, BTC_ASSET, limit],
  );
  return rows.map((r) => ({
    destinationId: r.destination_id,
    address: r.address,
    addressKey: r.address_key,
    derivationPath: r.derivation_path,
    txid: r.tx_hash,
    vout: Number(r.vout),
    amountRaw: BigInt(r.amount_raw),
  }));
}
