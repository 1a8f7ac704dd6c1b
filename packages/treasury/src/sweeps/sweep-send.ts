import { type ChainConfig, type ChainId, type Logger, mapBounded } from "@mp/core";
import type { DepositKeys, TreasuryKeys } from "@mp/custody";
import type { Database, LeaseKeeper, Queryable } from "@mp/db";
import { insertAttempt, lockSignable } from "../attempt-store.ts";
import { createLeasedChainLoop, type LeasedChainLoop } from "../chain-loop.ts";
import { type ChainSender, InsufficientTreasuryFundsError } from "../chain-sender.ts";
import { type FencedTx, fencedTx } from "../fenced-tx.ts";
import type { SendCheck } from "../send-check.ts";
import { justStored } from "../send-pipeline.ts";
import { requestSend } from "../send-requests.ts";
import { DEFAULT_SWEEP_CONFIG, type SweepConfig } from "./sweep-config.ts";
import { isolatedStep } from "./sweep-step.ts";
import {
  finishSweep,
  insertSweep,
  listSettledSweeps,
  markSweeping,
  type NewSweep,
  noteSweepWaiting,
  type OpenSweep,
  requestSweepSend,
  type SettledSweep,
  setTopUpSend,
} from "./sweep-store.ts";

/** What a family sweeper is started with (the signer's, the same for every family). */
export interface SweeperOptions {
  db: Database;
  /** The family's chains to sweep (their configs: node URL, tokens). */
  chains: readonly ChainConfig[];
  /** Deposit (receive) address keys from MASTER_MNEMONIC: the signer's only. */
  depositKeys: DepositKeys;
  /** The treasury's keys: the sweeps' destination, and the top-ups' source (through the send pipeline). */
  treasuryKeys: TreasuryKeys;
  logger: Logger;
  config?: SweepConfig;
  /** The process's lease keeper (role signer), else one of its own on `db`. */
  leases?: LeaseKeeper;
  leaseSeconds?: number;
  fetch?: typeof globalThis.fetch;
  /** Tests: called with the sweeps about to be signed (after their top-up confirmed), before any is. */
  onReady?: (sweepIds: string[]) => void;
}

/** A write transaction that first proves this process still holds the chain's sweeper lease. */
export type Fenced = FencedTx;

/** A sweep's send (purpose sweep), the idempotency key that makes every retry return the one send. */
export const sweepSendKey = (sweepId: string) => `sweep:${sweepId}`;

/** What one pass over one chain is given: its fenced writes, the sweep config, a logger naming the chain. */
export interface SweepPass {
  chain: ChainId;
  fenced: Fenced;
  config: SweepConfig;
  logger: Logger;
}

/**
 * A family sweeper's loop: one pass per chain of `options.chains` under the lease `sweeper:<CHAIN>`,
 * every write of the pass fenced by that lease (assertLeader in its transaction), as the send
 * pipeline's are, every `config.intervalMs`.
 */
export function createSweeperLoop(options: SweeperOptions, pass: (run: SweepPass) => Promise<void>): LeasedChainLoop {
  const { db, logger } = options;
  const config = options.config ?? DEFAULT_SWEEP_CONFIG;
  const leaseSeconds = options.leases?.seconds ?? options.leaseSeconds ?? 10;
  return createLeasedChainLoop({
    db,
    logger,
    ...(options.leases ? { leases: options.leases } : {}),
    leaseSeconds,
    chains: options.chains.map((c) => c.chain),
    leaseName: (chain) => `sweeper:${chain}`,
    intervalMs: config.intervalMs,
    what: "sweeper",
    pass: (chain, lease) =>
      pass({
        chain,
        config,
        logger: logger.child({ chain, sweeper: true }),
        fenced: fencedTx(db, lease, { idleTimeoutMs: leaseSeconds * 500 }),
      }),
  });
}

/**
 * Stores a sweep of a token, with the native-coin top-up (a treasury send, purpose top_up, through
 * the send pipeline) its fee needs when `topUp.amountRaw` > 0: in the caller's one transaction, so
 * a crash leaves both or neither, and the key derived from the sweep makes any retry return this
 * same top-up, never a second one. Null when the address already has an open sweep of the asset.
 */
export async function openSweepWithTopUp(
  tx: Queryable,
  sweep: Omit<NewSweep, "state"> & { topUp: { asset: string; amountRaw: bigint } },
  check: SendCheck,
): Promise<string | null> {
  const { topUp, ...rest } = sweep;
  const id = await insertSweep(tx, { ...rest, state: topUp.amountRaw > 0n ? "topping_up" : "ready" });
  if (id === null || topUp.amountRaw === 0n) return id;
  const { send } = await requestSend(
    tx,
    {
      chain: sweep.chain,
      asset: topUp.asset,
      to: sweep.candidate.address,
      amountRaw: topUp.amountRaw,
      purpose: "top_up",
      idempotencyKey: `sweep:${id}:top-up`,
    },
    check,
  );
  await setTopUpSend(tx, id, send.id);
  return id;
}

/**
 * Signs a sweep's transaction with `sender` (the family's sender signing as the deposit address)
 * and stores it (send + attempt + replay guard, one fenced transaction) before broadcasting it; the
 * send pipeline broadcasts it again if this broadcast is lost, confirms it and watches it for reorgs.
 * A sweep with `sendId` is one whose attempt expired (its send is queued again): the same send is
 * signed again, only while it is still queued (lockSignable), so two passes never sign it twice.
 * `check` is the family's send check (requestSend's).
 */
export async function signAndStoreSweep(
  context: { db: Database; chain: ChainId; fenced: Fenced; logger: Logger },
  sender: ChainSender,
  sweep: OpenSweep,
  check: SendCheck,
): Promise<void> {
  const { db, chain, fenced, logger } = context;
  // The send first (idempotent by the sweep's key): the sender prepares and signs the order by its id.
  const sendId = sweep.sendId ?? (await fenced((tx) => requestSweepSend(tx, chain, sweep, check)));
  const order = { id: sendId, chain, asset: sweep.asset, to: sweep.treasuryAddress, amountRaw: sweep.amountRaw };
  let prepared: unknown;
  try {
    prepared = await sender.prepare([order]);
  } catch (error) {
    if (error instanceof InsufficientTreasuryFundsError) {
      // The fee is short (it rose past the top-up's margin): it waits, visibly.
      await noteSweepWaiting(db, sweep.id, error.message);
      logger.warn({ sweep: sweep.id, reason: error.message }, "sweep waits: the deposit address lacks the fee");
      return;
    }
    throw error;
  }
  const stored = await fenced(async (tx) => {
    // Only while the sweep is still ready (or its requeued send still queued): never signed twice.
    const free = sweep.sendId === null ? await markSweeping(tx, sweep.id, sendId) : await lockSignable(tx, [sendId]);
    if (!free) return null;
    const signed = await sender.sign(tx, [order], prepared);
    const id = await insertAttempt(tx, chain, signed, null);
    return { ...signed, id };
  });
  if (!stored) return;
  await broadcastStored(sender, justStored(chain, stored, null), logger);
}

/** Stored first: a broadcast lost here is made again by the send pipeline's next pass. */
export async function broadcastStored(
  sender: ChainSender,
  attempt: ReturnType<typeof justStored>,
  logger: Logger,
): Promise<void> {
  await sender.broadcast(attempt).catch((error: unknown) => {
    logger.warn({ txHash: attempt.txHash, err: String(error) }, "sweep broadcast failed: the send pipeline retries it");
  });
}

/**
 * Sweeps whose send the pipeline confirmed (or saw fail) are finished with the fee their
 * transaction paid (`feePaid`, native coin, smallest units; null when it cannot be read now).
 */
export async function finishSettledSweeps(
  context: { db: Database; chain: ChainId; fenced: Fenced; logger: Logger },
  feePaid: (sweep: SettledSweep & { txHash: string }) => Promise<bigint | null>,
  options: { amountNetOfFee?: boolean } = {},
): Promise<void> {
  const { db, chain, fenced, logger } = context;
  const settled = await listSettledSweeps(db, chain);
  // One sweep whose fee the node cannot read now (or whose row cannot be written) is finished by a
  // later pass: it holds up neither the others nor the rest of the pass (new sweeps).
  await mapBounded(settled, 8, (sweep) => isolatedStep(logger, { sweep: sweep.id }, () => finishOne(sweep)));

  async function finishOne(sweep: SettledSweep): Promise<void> {
    const feePaidRaw = sweep.txHash === null ? null : await feePaid({ ...sweep, txHash: sweep.txHash });
    // Where the fee comes out of the swept amount (Bitcoin), a fee-bumped replacement moved less.
    const landed = sweep.sendState === "confirmed" && feePaidRaw !== null && options.amountNetOfFee;
    await fenced((tx) =>
      finishSweep(tx, sweep.id, {
        state: sweep.sendState,
        attemptId: sweep.attemptId,
        txHash: sweep.txHash,
        feePaidRaw,
        ...(landed ? { amountRaw: sweep.coveredRaw - feePaidRaw } : {}),
        reason: sweep.sendState === "failed" ? (sweep.reason ?? "the sweep failed on chain") : null,
      }),
    );
    if (sweep.sendState === "confirmed") logger.info({ sweep: sweep.id, txHash: sweep.txHash }, "sweep confirmed");
    else logger.warn({ sweep: sweep.id, reason: sweep.reason }, "sweep failed");
  }
}
