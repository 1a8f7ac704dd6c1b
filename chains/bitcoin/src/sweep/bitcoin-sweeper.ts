import { bitcoinNetwork } from "@mp/bitcoin-protocol";
import { type ChainConfig, type ChainId, NATIVE_ASSETS } from "@mp/core";
import type { Queryable } from "@mp/db";
import type { LeasedChainLoop, SignedAttempt } from "@mp/treasury/ports";
import {
  AttemptHashTakenError,
  broadcastStored,
  ChainSweepPass,
  createSweeperLoop,
  failUnsignableSweeps,
  finishSettledSweeps,
  insertAttempt,
  insertSweep,
  isolatedStep,
  justStored,
  listAttempts,
  markSweeping,
  type OpenAttempt,
  recordHashRefusal,
  requestSend,
  type SweeperOptions,
  sweepSendKey,
  sweepThreshold,
} from "@mp/treasury/ports";
import { address as bitcoinAddress } from "bitcoinjs-lib";
import { bitcoinRpc } from "../bitcoin-rpc.ts";
import { bitcoinSendCheck } from "../bitcoin-send-check.ts";
import { BTC_ASSET } from "../block-transfers.ts";
import { type BitcoinGuard, chainTip } from "../send/attempt-location.ts";
import {
  bitcoinFeeRate,
  bumpedFeeRate,
  estimateVsize,
  feeFor,
  outputBytes,
  P2WPKH_DUST,
} from "../send/bitcoin-fees.ts";
import { createBitcoinSender } from "../send/bitcoin-sender.ts";
import { type P2wpkhInput, signP2wpkh } from "../send/sign-p2wpkh.ts";
import type { Outpoint } from "../send/utxo-store.ts";

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
 * (treasury_utxos) once mined: the treasury spends swept coins. fee_paid_raw = each row's share
 * (the attempt's fee.shares, by send).
 *
 * A batch stuck for the sender's stuckAfterBlocks is replaced by fee here (the pipeline's replace()
 * holds no deposit keys): same inputs, the sender's BIP-125 bump, stored with `replaces`; whichever
 * lands settles the rows (its fee, and amount_raw = covered less its share). A batch the pipeline
 * queues again (an input left the chain in a reorg, or the node refused it for good) fails with
 * its sweeps: the addresses' outputs still on the chain are batched again by a later pass.
 */
export function createBitcoinSweeper(options: BitcoinSweeperOptions): LeasedChainLoop {
  const treasury = options.treasuryKeys.key("bitcoin").address;
  const chains = new Map(options.chains.map((c) => [c.chain, c]));
  return createSweeperLoop(options, (run) =>
    new BitcoinChainSweep(chains.get(run.chain) as ChainConfig, treasury, options, run).run(),
  );
}

class BitcoinChainSweep extends ChainSweepPass<ChainConfig, BitcoinSweeperOptions> {
  private readonly network = bitcoinNetwork(this.runtime.network);
  private readonly rpc = bitcoinRpc(this.runtime, { fetch: this.options.fetch, logger: this.logger });
  private readonly script = bitcoinAddress.toOutputScript(this.treasury, this.network.encoding);
  private readonly sender = createBitcoinSender({
    config: this.runtime,
    keys: this.options.treasuryKeys,
    db: this.options.db,
    logger: this.logger,
    ...(this.options.fetch === undefined ? {} : { fetch: this.options.fetch }),
  });

  async run(): Promise<void> {
    // Each row's share of the fee of the transaction that landed (the first or a fee bump).
    await finishSettledSweeps(this.context, async (sweep) => landedShare(sweep) ?? sweep.coveredRaw - sweep.amountRaw, {
      amountNetOfFee: true,
    });
    await this.failUnsignable();
    await this.bumpStuck();
    const threshold = sweepThreshold(this.config, NATIVE_ASSETS[this.chain], true);
    const byAddress = byDestination(await unsweptDepositOutputs(this.options.db, this.chain, MAX_INPUTS * 5));
    const inputs: DepositOutput[] = [];
    for (const outputs of byAddress.values()) {
      const total = outputs.reduce((sum, o) => sum + o.amountRaw, 0n);
      // An address's outputs go together or not at all: its row covers all it holds.
      if (total < threshold || inputs.length + outputs.length > MAX_INPUTS) continue;
      inputs.push(...outputs);
    }
    if (inputs.length > 0) await this.sweepIsolated(inputs);
  }

  /**
   * The batch of every address due, and, when it is not stored (it threw, a key does not match its
   * address, its hash is a stored attempt's), each of its addresses alone: one address that cannot
   * be swept does not hold up the other merchants' (each alone is its own transaction, its own hash).
   */
  private async sweepIsolated(inputs: DepositOutput[]): Promise<void> {
    // The tip it is signed above: the sender finds it by its block, without -txindex (attempt-location.ts).
    const tip = await chainTip(this.rpc);
    const rate = await bitcoinFeeRate(this.rpc, this.runtime);
    const byAddress = byDestination(inputs);
    const batch = await isolatedStep(this.logger, { addresses: String(byAddress.size) }, () =>
      this.sweep(inputs, rate, tip),
    );
    if (batch === true || byAddress.size === 1) return;
    this.logger.warn({ addresses: byAddress.size }, "a bitcoin sweep batch was not stored: each address swept alone");
    for (const [destinationId, outputs] of byAddress) {
      await isolatedStep(this.logger, { destination: destinationId }, () => this.sweep(outputs, rate, tip));
    }
  }

  /**
   * A batch the pipeline put back in the queue (its inputs left the chain in a reorg, or the node
   * refused it for good) cannot be signed again as it was: its sweeps and sends fail, and the
   * outputs of their addresses still on the chain go into a later batch.
   */
  private async failUnsignable(): Promise<void> {
    const failed = await this.fenced((tx) =>
      failUnsignableSweeps(tx, this.chain, "the sweep transaction can never land, not signed again: "),
    );
    if (failed.length > 0) this.logger.warn({ sweeps: failed }, "bitcoin sweeps failed: their batch can never land");
  }

  /**
   * Stuck sweep batches (broadcast, unmined for the sender's stuckAfterBlocks): replaced by fee
   * (BIP-125, the sender's bumpedFeeRate) with the same inputs, signed again with the deposit keys
   * (the pipeline's replace() holds treasury keys only). The replacement is stored with `replaces`
   * before it is broadcast; the pipeline tracks both, and whichever lands retires the other.
   */
  private async bumpStuck(): Promise<void> {
    const head = await this.sender.head();
    const open = await listAttempts(this.options.db, this.chain, ["broadcast"]);
    const stuck = open.filter(
      (a) =>
        !a.superseded &&
        !a.landedElsewhere &&
        a.broadcastHeight !== null &&
        head - a.broadcastHeight >= this.sender.stuckAfterBlocks,
    );
    for (const attempt of stuck) {
      await isolatedStep(this.logger, { attempt: attempt.id }, () => this.bump(attempt));
    }
  }

  private async bump(attempt: OpenAttempt): Promise<void> {
    const status = await this.sender.status(attempt);
    if (status.state !== "pending" && status.state !== "unknown") return;
    const guard = (attempt.guard as { inputs?: Outpoint[] }).inputs ?? [];
    const inputs = await depositOutputsAt(this.options.db, this.chain, guard);
    // Not a sweep (a treasury send: the pipeline bumps those), or an input no longer a deposit of ours.
    if (inputs.length === 0 || inputs.length !== guard.length) return;
    const sends = await sweepSendsOf(this.options.db, attempt.id);
    if (sends.size !== new Set(inputs.map((i) => i.destinationId)).size) return;
    const oldRate = BigInt(String((attempt.fee as { feeRate?: unknown }).feeRate ?? "0"));
    const rate = bumpedFeeRate(oldRate, await bitcoinFeeRate(this.rpc, this.runtime));
    // The same tip as the batch it replaces: neither can be in a block at or below it.
    const { fromHeight, fromHash } = attempt.guard as Partial<BitcoinGuard>;
    const tip = fromHeight === undefined || fromHash === undefined ? {} : { fromHeight, fromHash };
    const batch = this.signBatch(inputs, rate, tip);
    if (batch === null) {
      this.logger.warn(
        { txHash: attempt.txHash },
        "a stuck sweep cannot pay a higher fee from its inputs: left as it is",
      );
      return;
    }
    const stored = await this.fenced(async (tx) => {
      // Still the newest attempt of its sends and still out: never two replacements of one attempt.
      const { rows } = await tx.query(
        `SELECT 1 FROM treasury_attempts a WHERE a.id = $1 AND a.state = 'broadcast'
            AND NOT EXISTS (SELECT 1 FROM treasury_attempts r WHERE r.replaces = a.id) FOR UPDATE`,
        [attempt.id],
      );
      if (rows.length === 0) return null;
      const signed = { ...withShares(batch, sends), orders: attempt.orders.map((o) => ({ id: o.id })) };
      const id = await insertAttempt(tx, this.chain, signed, attempt.id);
      return { ...signed, id };
    });
    if (!stored) return;
    this.logger.info(
      { attempt: attempt.id, replacement: stored.id, txHash: stored.txHash, fee: stored.fee },
      "stuck bitcoin sweep replaced",
    );
    await broadcastStored(this.sender, justStored(this.chain, stored, attempt.id), this.logger);
  }

  /**
   * The batch signed with the deposit keys at `rate`: one output to the treasury, and each
   * address's share of the fee (by its inputs). Null when it cannot pay its fee (or a key mismatch).
   */
  private signBatch(
    inputs: readonly DepositOutput[],
    rate: bigint,
    tip: Omit<BitcoinGuard, "inputs">,
  ): SignedBatch | null {
    const fee = feeFor(estimateVsize(inputs.length, 1, outputBytes(this.script)), rate);
    const total = inputs.reduce((sum, i) => sum + i.amountRaw, 0n);
    if (total - fee < P2WPKH_DUST) return null;
    const shares = feeShares(inputs, fee);
    for (const [destinationId, share] of shares) {
      const covered = inputs.filter((i) => i.destinationId === destinationId).reduce((sum, o) => sum + o.amountRaw, 0n);
      if (covered - share <= 0n) return null;
    }
    const signing: P2wpkhInput[] = [];
    for (const input of inputs) {
      const key = this.options.depositKeys.forPath("bitcoin", input.derivationPath);
      if (key.address !== input.address) {
        // Never sign for an address whose key we do not derive: the destination row and the mnemonic disagree.
        this.logger.error({ address: input.address }, "deposit key does not match its address: batch not signed");
        return null;
      }
      signing.push({ ...input, key });
    }
    // nLockTime at the tip it is signed above (as Bitcoin Core does against fee sniping): a deposit
    // output swept again after a reorg failed its first sweep (the same coin, amount and treasury
    // script) would otherwise sign to the very transaction id already stored for that failed
    // attempt, and the store refuses a second attempt of one hash (treasury_attempts' unique key),
    // every pass, for every deposit of the chain.
    const signed = signP2wpkh(
      signing,
      [{ script: this.script, value: total - fee }],
      this.network.encoding,
      tip.fromHeight ?? 0,
    );
    return {
      txHash: signed.getId(),
      raw: signed.toHex(),
      from: inputs[0]?.address ?? this.treasury,
      guard: { inputs: inputs.map((i) => ({ txid: i.txid, vout: i.vout })), ...tip },
      rate,
      fee,
      shares,
    };
  }

  /**
   * Signs the batch with the deposit keys, stores rows, sends and attempt, then broadcasts. False
   * when nothing was stored: it cannot be signed, or it signed to the hash of a stored attempt (the
   * same outputs at the same tip height as a batch that failed, e.g. after a reorg that kept the
   * height): refused for this pass, counted, batched again above a later tip.
   */
  private async sweep(inputs: DepositOutput[], rate: bigint, tip: Omit<BitcoinGuard, "inputs">): Promise<boolean> {
    const batch = this.signBatch(inputs, rate, tip);
    if (batch === null) return false;
    const destinations = [...batch.shares.keys()];
    const stored = await this.fenced(async (tx) => {
      // Each address's row and send first: the attempt names each send in its fee shares.
      const sends = new Map<string, string>();
      for (const destinationId of destinations) {
        const outputs = inputs.filter((i) => i.destinationId === destinationId);
        const first = outputs[0] as DepositOutput;
        const covered = outputs.reduce((sum, o) => sum + o.amountRaw, 0n);
        const amountRaw = covered - (batch.shares.get(destinationId) ?? 0n);
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
        const { send } = await requestSend(
          tx,
          {
            chain: this.chain,
            asset: BTC_ASSET,
            to: this.treasury,
            amountRaw,
            purpose: "sweep",
            idempotencyKey: sweepSendKey(id),
          },
          bitcoinSendCheck,
        );
        await markSweeping(tx, id, send.id);
        sends.set(destinationId, send.id);
      }
      // No outputIndex: the one output pays the treasury itself, so the sender records it as our coin.
      const attempt = {
        ...withShares(batch, sends),
        orders: destinations.map((d) => ({ id: sends.get(d) as string })),
      };
      const id = await insertAttempt(tx, this.chain, attempt, null);
      return { ...attempt, id };
    }).catch(async (error: unknown) => {
      if (!(error instanceof AttemptHashTakenError)) throw error;
      await recordHashRefusal(this.options.db, this.logger, error, "sweep", { addresses: destinations.length });
      return null;
    });
    if (stored === null) return false;
    this.logger.info(
      { txHash: stored.txHash, addresses: destinations.length, inputs: inputs.length, fee: batch.fee.toString() },
      "bitcoin sweep signed and stored",
    );
    await broadcastStored(this.sender, justStored(this.chain, stored, null), this.logger);
    return true;
  }
}

/** A batch signed with the deposit keys, before its rows and sends are stored. */
interface SignedBatch {
  txHash: string;
  raw: string;
  from: string;
  guard: BitcoinGuard;
  rate: bigint;
  fee: bigint;
  /** Each deposit address's (destination's) share of the fee. */
  shares: Map<string, bigint>;
}

/** The attempt's columns of a batch: its fee with each row's share by its send (`sends`: destination to send). */
function withShares(batch: SignedBatch, sends: ReadonlyMap<string, string>): Omit<SignedAttempt, "orders"> {
  const { rate, fee, shares, ...rest } = batch;
  const bySend = [...shares].map(([destinationId, share]) => [sends.get(destinationId), share.toString()]);
  return { ...rest, fee: { feeRate: rate.toString(), fee: fee.toString(), shares: Object.fromEntries(bySend) } };
}

/** A row's share of the fee of the attempt that landed, as that attempt was signed (fee.shares by send). */
function landedShare(sweep: { sendId: string; fee: Record<string, unknown> | null }): bigint | null {
  const share = (sweep.fee?.shares as Record<string, string> | undefined)?.[sweep.sendId];
  return share === undefined ? null : BigInt(share);
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

/** Outputs by their deposit address (destination), in their order. */
function byDestination(outputs: readonly DepositOutput[]): Map<string, DepositOutput[]> {
  const by = new Map<string, DepositOutput[]>();
  for (const output of outputs) by.set(output.destinationId, [...(by.get(output.destinationId) ?? []), output]);
  return by;
}

/** A deposit output as the queries below read it. */
interface DepositOutputRow {
  destination_id: string;
  address: string;
  address_key: string;
  derivation_path: string;
  tx_hash: string;
  vout: number;
  amount_raw: string;
}

/**
 * Confirmed deposit outputs (position vout:N) at addresses with no open BTC sweep, that no live
 * attempt spends (in the guard of a signed, broadcast or mined attempt: an open or landed sweep).
 */
async function unsweptDepositOutputs(q: Queryable, chain: ChainId, limit: number): Promise<DepositOutput[]> {
  const { rows } = await q.query<DepositOutputRow>(
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
  return rows.map(toDepositOutput);
}

const toDepositOutput = (r: DepositOutputRow): DepositOutput => ({
  destinationId: r.destination_id,
  address: r.address,
  addressKey: r.address_key,
  derivationPath: r.derivation_path,
  txid: r.tx_hash,
  vout: Number(r.vout),
  amountRaw: BigInt(r.amount_raw),
});

/** The confirmed deposit outputs at these outpoints, in their order (a stuck batch's inputs, to sign again). */
async function depositOutputsAt(
  q: Queryable,
  chain: ChainId,
  outpoints: readonly Outpoint[],
): Promise<DepositOutput[]> {
  const { rows } = await q.query<DepositOutputRow>(
    `SELECT d.destination_id, t.address, t.address_key, t.derivation_path, d.tx_hash, i.vout, d.amount_raw::text AS amount_raw
       FROM unnest($2::text[], $3::int[]) WITH ORDINALITY AS i(txid, vout, ord)
       JOIN deposits d ON d.chain = $1 AND d.tx_hash = i.txid AND d.position = 'vout:' || i.vout
       JOIN destinations t ON t.id = d.destination_id
      WHERE d.status = 'CONFIRMED' AND d.asset = $4
      ORDER BY i.ord`,
    [chain, outpoints.map((o) => o.txid), outpoints.map((o) => o.vout), BTC_ASSET],
  );
  return rows.map(toDepositOutput);
}

/** The open sweeps an attempt carries: their deposit address (destination) to their send. */
async function sweepSendsOf(q: Queryable, attemptId: string): Promise<Map<string, string>> {
  const { rows } = await q.query<{ destination_id: string; send_id: string }>(
    `SELECT w.destination_id, w.send_id FROM treasury_attempt_sends x
       JOIN treasury_sweeps w ON w.send_id = x.send_id
      WHERE x.attempt_id = $1 AND w.state = 'sweeping'`,
    [attemptId],
  );
  return new Map(rows.map((r) => [r.destination_id, r.send_id]));
}
