import { type ChainConfig, type ChainId, mapBounded } from "@mp/core";
import type { LeasedChainLoop } from "@mp/treasury/ports";
import {
  ChainSweepPass,
  createSweeperLoop,
  finishSettledSweeps,
  insertSweep,
  isolatedStep,
  keysSigningAs,
  listReadySweeps,
  listRequeuedSweeps,
  listSweepCandidates,
  noteSweepWaiting,
  type OpenSweep,
  openSweepAmounts,
  openSweepWithTopUp,
  type SweepCandidate,
  type SweeperOptions,
  settleTopUps,
  signAndStoreSweep,
  sweepThreshold,
  unsweptDepositsAt,
} from "@mp/treasury/ports";
import { TronNode } from "../send/tron-node.ts";
import { BANDWIDTH_RESERVE_SUN, createTronSender, transferData, tronFeeLimit } from "../send/tron-sender.ts";
import { base58ToHex } from "../tron-address.ts";
import { resolveTronAssets, type TronAssets } from "../tron-assets.ts";
import { tronSendCheck } from "../tron-send-check.ts";

/** The Tron chains to sweep are `chains` (their configs: node URL, TRC-20 tokens). */
export type TronSweeperOptions = SweeperOptions;

/** Addresses looked at per pass: the rest waits for the next one. */
const SWEEPS_PER_TICK = 1_000;
/** Node look-ups (and signings) in flight at once. */
const CONCURRENCY = 8;

/**
 * The Tron sweeper (issue 14 "Sweeps", "Tron after bandwidth/energy top-up"), run by the signer:
 *
 *   TRC-20: a TRX top-up (a treasury send, purpose top_up, key `sweep:<id>:top-up`, through
 *           requestSend and the send pipeline) sized by the Tron sender's own rule: the transfer's
 *           energy estimate (triggerconstantcontract from the deposit address) at today's energy
 *           price plus 30% (fee_limit), plus the bandwidth reserve, less the TRX the address holds
 *           that is not leaving it (a deposit to sweep, or held back by an open TRX sweep) -> once confirmed, the TRC-20 `transfer` to the
 *           treasury, built by the node, checked and signed offline by the Tron sender with the
 *           deposit key, stored before it is broadcast.
 *   TRX:    the deposits less the bandwidth reserve, no top-up; the reserve stays as dust.
 *
 * The sweep's transaction is a treasury send from the deposit address (purpose sweep), stored by
 * insertAttempt: the send pipeline broadcasts it again after a crash, confirms it and watches it for
 * reorgs. A sweep attempt proven expired (Tron's replay guard) is requeued by the pipeline, which
 * never signs a sweep: this sweeper signs it again with the deposit key. No ledger entry: the custody
 * record is treasury_sweeps (fee_paid_raw = the sun the receipt says was burnt).
 */
export function createTronSweeper(options: TronSweeperOptions): LeasedChainLoop {
  const treasury = options.treasuryKeys.key("tron").address;
  const chains = new Map<ChainId, ChainRuntime>(
    options.chains.map((c) => [
      c.chain,
      {
        config: c,
        assets: resolveTronAssets(c),
        node: new TronNode({ url: c.rpcUrl, setting: `CHAINS_CONFIG.${c.chain}.rpcUrl`, fetch: options.fetch }),
      },
    ]),
  );
  return createSweeperLoop(options, (run) =>
    new TronChainSweep(chains.get(run.chain) as ChainRuntime, treasury, options, run).run(),
  );
}

interface ChainRuntime {
  config: ChainConfig;
  assets: TronAssets;
  node: TronNode;
}

/** One pass over one Tron chain under its lease. */
class TronChainSweep extends ChainSweepPass<ChainRuntime, TronSweeperOptions> {
  async run(): Promise<void> {
    const { node } = this.runtime;
    await finishSettledSweeps(this.context, async ({ txHash }) => {
      const info = await node.transactionInfo(txHash);
      return info === null ? null : BigInt(info.fee ?? 0);
    });
    await this.fenced((tx) => settleTopUps(tx, this.chain));
    const ready = [
      ...(await listRequeuedSweeps(this.options.db, this.chain, SWEEPS_PER_TICK)),
      ...(await listReadySweeps(this.options.db, this.chain, SWEEPS_PER_TICK)),
    ];
    if (ready.length > 0) this.options.onReady?.(ready.map((s) => s.id));
    await mapBounded(ready, CONCURRENCY, (sweep) =>
      isolatedStep(this.logger, { sweep: sweep.id }, () => this.sign(sweep)),
    );
    const candidates = await listSweepCandidates(this.options.db, this.chain, SWEEPS_PER_TICK);
    const native = this.runtime.assets.native;
    // TRX leaving each address, that a TRC-20 sweep's fee may not count on: deposits not swept yet
    // (pending ones, and those beside an open TRX sweep, too), and what an open TRX sweep moves plus
    // the bandwidth reserve its own transaction may burn.
    const tokenAt = candidates.filter((c) => c.asset !== native.asset).map((c) => c.destinationId);
    const trxLeaving = await unsweptDepositsAt(this.options.db, this.chain, native.asset, tokenAt);
    for (const [address, { amount }] of await openSweepAmounts(this.options.db, this.chain, native.asset)) {
      trxLeaving.set(address, (trxLeaving.get(address) ?? 0n) + amount + BANDWIDTH_RESERVE_SUN);
    }
    await mapBounded(
      candidates.filter((c) => c.unsweptRaw >= this.threshold(c.asset)),
      CONCURRENCY,
      (c) => isolatedStep(this.logger, { address: c.address, asset: c.asset }, () => this.open(c, trxLeaving)),
    );
  }

  private threshold(asset: string): bigint {
    const known = this.runtime.assets.bySymbol(asset);
    return sweepThreshold(this.config, known ?? { asset, decimals: 0 }, asset === this.runtime.assets.native.asset);
  }

  /** Opens a sweep: for a TRC-20, with a TRX top-up when the address cannot pay the transfer's energy. */
  private async open(candidate: SweepCandidate, trxLeaving: ReadonlyMap<string, bigint>): Promise<void> {
    const { node, assets } = this.runtime;
    const ownerHex = base58ToHex(candidate.address);
    const trx = await node.balance(ownerHex);
    if (candidate.asset === assets.native.asset) {
      // The deposit pays its own bandwidth: what moves is the deposit less the reserve the sender keeps for it.
      // Never more than the address holds now (a fee of an earlier sweep may have come out of it).
      let movable = candidate.unsweptRaw;
      if (trx < movable) movable = trx;
      const amountRaw = movable - BANDWIDTH_RESERVE_SUN;
      if (amountRaw <= 0n) return;
      await this.fenced((tx) =>
        insertSweep(tx, { chain: this.chain, candidate, treasuryAddress: this.treasury, amountRaw, state: "ready" }),
      );
      return;
    }
    const token = assets.bySymbol(candidate.asset);
    if (!token?.address) {
      this.logger.warn({ asset: candidate.asset }, "deposits of an asset no longer configured: not swept");
      return;
    }
    const contractHex = base58ToHex(token.address);
    const [estimate, price, staked] = await Promise.all([
      node.constantCall(ownerHex, contractHex, transferData(base58ToHex(this.treasury), candidate.unsweptRaw)),
      node.energyPrice(),
      node.freeEnergy(ownerHex),
    ]);
    if (estimate.reverted || estimate.energyUsed <= 0) {
      this.logger.warn(
        { address: candidate.address, asset: candidate.asset },
        "the sweep's dry run reverted: not swept",
      );
      return;
    }
    const energy = BigInt(estimate.energyUsed);
    // The Tron sender's rule: staked energy pays first, the rest is burnt up to fee_limit; plus bandwidth.
    const needed = (energy > staked ? tronFeeLimit(energy - staked, price) : 0n) + BANDWIDTH_RESERVE_SUN;
    const spare = trx - (trxLeaving.get(candidate.address) ?? 0n);
    const topUp = needed > spare ? needed - (spare > 0n ? spare : 0n) : 0n;
    const sweepId = await this.fenced((tx) =>
      openSweepWithTopUp(
        tx,
        {
          chain: this.chain,
          candidate,
          treasuryAddress: this.treasury,
          amountRaw: candidate.unsweptRaw,
          topUp: { asset: assets.native.asset, amountRaw: topUp },
        },
        tronSendCheck,
      ),
    );
    if (sweepId) {
      this.logger.info(
        { sweep: sweepId, address: candidate.address, asset: candidate.asset, topUp: topUp.toString() },
        "sweep opened",
      );
    }
  }

  /** Signs a ready (or requeued) sweep with its deposit key through the Tron sender, stored before broadcast. */
  private async sign(sweep: OpenSweep): Promise<void> {
    const key = this.options.depositKeys.forPath("tron", sweep.derivationPath);
    if (key.address !== sweep.depositAddress) {
      // Never sign for an address whose key we do not derive: the destination row and the mnemonic disagree.
      await noteSweepWaiting(
        this.options.db,
        sweep.id,
        `the deposit key derives ${key.address}, not ${sweep.depositAddress}`,
      );
      this.logger.error({ sweep: sweep.id, address: sweep.depositAddress }, "deposit key does not match its address");
      return;
    }
    const sender = createTronSender({
      config: this.runtime.config,
      keys: keysSigningAs("tron", key),
      db: this.options.db,
      logger: this.logger,
      ...(this.options.fetch === undefined ? {} : { fetch: this.options.fetch }),
    });
    await signAndStoreSweep(this.context, sender, sweep, tronSendCheck);
  }
}
