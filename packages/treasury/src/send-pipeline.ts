import { AppError, type ChainId, type Logger, mapBounded } from "@mp/core";
import { assertLeader, type Database, type Lease, type LeaseKeeper } from "@mp/db";
import { AttemptHashTakenError, recordHashRefusal } from "./attempt-hash-taken.ts";
import {
  insertAttempt,
  issueAttemptInserts,
  listAttempts,
  listSignable,
  lockSignable,
  markBroadcast,
  markConfirmed,
  markExpired,
  markFailed,
  markMined,
  markRefused,
  markRejected,
  markReorged,
  markWaitingFunds,
  type OpenAttempt,
  ordersOf,
} from "./attempt-store.ts";
import { createLeasedChainLoop } from "./chain-loop.ts";
import {
  type AttemptStatus,
  BroadcastRefusedError,
  type ChainSender,
  InsufficientTreasuryFundsError,
  type SendOrder,
  type SignedAttempt,
  type StoredAttempt,
} from "./chain-sender.ts";
import { type FencedTx, fencedTx } from "./fenced-tx.ts";

export interface SendPipelineOptions {
  db: Database;
  senders: ChainSender[];
  logger: Logger;
  /** Confirmations a send needs per chain (the chain config's `confirmations`). */
  confirmations: Partial<Record<ChainId, number>>;
  pollIntervalMs?: number;
  leaseSeconds?: number;
  /**
   * The process's lease keeper (role "signer"), shared with its other leaders; without one the
   * pipeline keeps its own on `db`, stopped by stop().
   */
  leases?: LeaseKeeper;
  /** Tests (the signer's PAYMENTS_TEST_HALT_AFTER): called at each step of a send, see SendStage. */
  onStage?: (reached: { stage: SendStage; attemptId: string }) => void;
}

/**
 * The steps of a send at which the pipeline calls onStage, each just before the next write or call:
 * `signed` the attempt is signed and its insert issued, the transaction not committed; `stored`
 * committed, not broadcast; `broadcast` the node accepted it, not recorded; `mined` the node has it
 * in a block as deep as the chain's confirmations, its confirmation not recorded.
 */
export const SEND_STAGES = ["signed", "stored", "broadcast", "mined"] as const;
export type SendStage = (typeof SEND_STAGES)[number];

export interface SendPipeline {
  /** One pass over one chain (lease `sender:<CHAIN>` via @mp/db leases + assertLeader in every write transaction): broadcast stored attempts, check statuses/confirmations/reorgs, replace stuck ones, sign queued sends. */
  tick(chain: ChainId): Promise<void>;
  /** Loops every pollIntervalMs per chain. */
  start(): void;
  stop(): Promise<void>;
}

/** Sends read per pass: the rest waits for the next pass (a pass stays short, the lease fresh). */
const SIGN_PER_TICK = 1_000;
/** Status look-ups in flight at once (one RPC each). */
const STATUS_CONCURRENCY = 16;
/** Mined attempts recorded per transaction. */
const MINED_PER_TX = 200;
/** Blocks past its confirmation a settled send's block is still checked for a reorg, at least. */
const MIN_REORG_WINDOW = 16;

/**
 * The one send pipeline of every chain family (issue 14). Per chain, only the holder of the lease
 * `sender:<CHAIN>` works, and every write it makes runs assertLeader first in its transaction: a
 * deposed signer writes nothing, so it can neither allocate a guard nor store an attempt twice.
 *
 * The invariant that keeps a request from paying twice: an attempt is signed and stored in one
 * transaction (with its replay guard: EVM nonce, Bitcoin inputs, Solana blockhash) BEFORE it is
 * broadcast, and a stored attempt is only ever rebroadcast, replaced with the same guard, or, once
 * proven expired, followed by a new one. No RPC runs inside a transaction except what a sender's
 * sign()/replace() does with the transaction's client (none for EVM).
 */
export function createSendPipeline(options: SendPipelineOptions): SendPipeline {
  const { db, logger } = options;
  const leaseSeconds = options.leases?.seconds ?? options.leaseSeconds ?? 10;
  const senders = new Map<ChainId, ChainSender>(options.senders.map((s) => [s.chain, s]));
  return createLeasedChainLoop({
    db,
    logger,
    ...(options.leases ? { leases: options.leases } : {}),
    leaseSeconds,
    chains: [...senders.keys()],
    leaseName: (chain) => `sender:${chain}`,
    intervalMs: options.pollIntervalMs ?? 1_000,
    what: "send pipeline",
    pass: (chain, lease) =>
      new ChainPass(
        senders.get(chain) as ChainSender,
        lease,
        options.confirmations[chain] ?? 1,
        logger.child({ chain }),
        db,
        { idleTimeoutMs: leaseSeconds * 500 },
        options.onStage,
      ).run(),
  });
}

/** One pass over one chain under one lease. */
class ChainPass {
  /** Attempts broadcast in this pass, marked in one transaction at the end of a step. */
  private broadcasted: string[] = [];
  private head = 0;

  constructor(
    private readonly sender: ChainSender,
    private readonly lease: Lease,
    private readonly confirmations: number,
    private readonly logger: Logger,
    private readonly db: Database,
    private readonly fence: { idleTimeoutMs: number },
    private readonly onStage?: SendPipelineOptions["onStage"],
  ) {
    this.fenced = fencedTx(db, lease, fence);
  }

  private readonly fenced: FencedTx;

  async run(): Promise<void> {
    this.head = await this.sender.head();
    await this.broadcastSigned();
    await this.checkStatuses();
    await this.signQueued();
  }

  /** (a) Every stored attempt not yet known to be broadcast: sent (again), never signed again. */
  private async broadcastSigned(): Promise<void> {
    const signed = await listAttempts(this.db, this.sender.chain, ["signed"]);
    for (const attempt of signed) {
      // A sibling landed: this one can only be refused now (its guard is used); checkStatuses retires it.
      if (attempt.landedElsewhere) continue;
      await this.broadcast(attempt);
    }
    await this.flushBroadcast();
  }

  private async broadcast(attempt: StoredAttempt): Promise<boolean> {
    try {
      await this.sender.broadcast(attempt);
      this.onStage?.({ stage: "broadcast", attemptId: attempt.id });
      this.broadcasted.push(attempt.id);
      return true;
    } catch (error) {
      if (error instanceof BroadcastRefusedError) {
        await this.refuse(attempt, error.message);
        return false;
      }
      // Stored, so nothing is lost: the next pass broadcasts it again, or its status settles it.
      this.logger.warn({ attempt: attempt.id, txHash: attempt.txHash, err: String(error) }, "broadcast failed");
      return false;
    }
  }

  /**
   * The node refused the attempt for good: it fails with the node's reason, and where nothing else
   * holds its guard a filler takes it (EVM: a zero-value transfer to itself at that nonce), so the
   * sends after it are not held up behind a nonce that can never be used.
   */
  private async refuse(attempt: StoredAttempt, reason: string): Promise<void> {
    const log = { attempt: attempt.id, txHash: attempt.txHash, orders: attempt.orders.map((o) => o.id), reason };
    const filler = await this.fenced(async (tx) => {
      if (!(await markRefused(tx, attempt.id, reason))) return null;
      // A refused filler is not filled again: its guard waits for an operator (logged below).
      if (attempt.guard.fills !== undefined) return null;
      const signed = (await this.sender.fill?.(tx, attempt)) ?? null;
      if (!signed) return null;
      const id = await insertAttempt(tx, this.sender.chain, signed, null);
      return { ...signed, id };
    });
    this.logger.error({ ...log, filler: filler?.id ?? null }, "the node refused a send for good: failed");
    if (filler) await this.broadcast(justStored(this.sender.chain, filler, null));
  }

  private async flushBroadcast(): Promise<void> {
    const ids = this.broadcasted;
    this.broadcasted = [];
    if (ids.length > 0) await this.fenced((tx) => markBroadcast(tx, ids, this.head));
  }

  /** (b) Statuses of what is out: mined, confirmed, reorged, failed, expired, stuck. */
  private async checkStatuses(): Promise<void> {
    const window = Math.max(this.confirmations * 2, MIN_REORG_WINDOW);
    const open = await listAttempts(this.db, this.sender.chain, ["broadcast", "mined"], this.head - window);
    const settled = open.filter((a) => a.state === "mined" && a.settled);
    const watched = open.filter((a) => !(a.state === "mined" && a.settled));
    await this.checkSettled(settled);
    const statuses = await mapBounded(watched, STATUS_CONCURRENCY, (a) =>
      this.sender.status(a).catch((error: unknown) => {
        // One attempt the node cannot answer for does not hold up the others.
        this.logger.warn({ attempt: a.id, txHash: a.txHash, err: String(error) }, "status look-up failed");
        return undefined;
      }),
    );
    const mined: Array<{ attempt: OpenAttempt; status: MinedStatus }> = [];
    const others: Array<{ attempt: OpenAttempt; status: Exclude<AttemptStatus, MinedStatus> }> = [];
    for (const [i, attempt] of watched.entries()) {
      const status = statuses[i];
      if (status?.state === "mined") mined.push({ attempt, status });
      else if (status) others.push({ attempt, status });
    }
    // Landings first: an attempt outbid by one of them is then seen as replaced, never re-queued.
    for (let i = 0; i < mined.length; i += MINED_PER_TX) await this.applyMined(mined.slice(i, i + MINED_PER_TX));
    const landings = lastLandings(open, mined);
    for (const { attempt, status } of others) await this.apply(attempt, status, landings);
    await this.flushBroadcast();
  }

  /**
   * Mined attempts, many per fenced transaction (a sweep round lands a thousand at once): each
   * recorded in its block, and confirmed once deep enough.
   */
  private async applyMined(mined: Array<{ attempt: OpenAttempt; status: MinedStatus }>): Promise<void> {
    const changes = mined.flatMap(({ attempt, status }) => {
      const deep = this.head - status.blockHeight + 1 >= this.confirmations;
      const moved = attempt.state !== "mined" || attempt.blockHash !== status.blockHash;
      return moved || deep ? [{ attempt, status, deep, moved }] : [];
    });
    if (changes.length === 0) return;
    for (const c of changes) if (c.deep) this.onStage?.({ stage: "mined", attemptId: c.attempt.id });
    const confirmed = await this.fenced(async (tx) => {
      const moved = changes.filter((c) => c.moved);
      await markMined(
        tx,
        moved.map((c) => ({ id: c.attempt.id, height: c.status.blockHeight, hash: c.status.blockHash })),
      );
      for (const c of moved) await this.sender.recordStatus?.(tx, c.attempt, c.status);
      return markConfirmed(
        tx,
        changes.filter((c) => c.deep).map((c) => c.attempt.id),
      );
    });
    for (const { attempt, status } of changes) {
      if (!confirmed.has(attempt.id)) continue;
      const orders = attempt.orders.map((o) => o.id);
      this.logger.info(
        { attempt: attempt.id, txHash: attempt.txHash, orders, height: status.blockHeight },
        "send confirmed",
      );
    }
  }

  /** Confirmed sends: their block must still be the chain's, else they are watched again. */
  private async checkSettled(settled: OpenAttempt[]): Promise<void> {
    const heights = [...new Set(settled.map((a) => a.blockHeight as number))];
    const hashes = new Map<number, string | null>();
    await mapBounded(heights, STATUS_CONCURRENCY, async (h) => hashes.set(h, await this.sender.blockHash(h)));
    for (const attempt of settled) {
      if (hashes.get(attempt.blockHeight as number) === attempt.blockHash) continue;
      await this.fenced(async (tx) => {
        await markReorged(tx, attempt.id, this.head);
        await this.sender.recordStatus?.(tx, attempt, { state: "unknown" });
      });
      this.logger.warn(
        { attempt: attempt.id, txHash: attempt.txHash, height: attempt.blockHeight },
        "a confirmed send's block left the chain: watched again, not re-sent",
      );
    }
  }

  /**
   * Unmined for the sender's stuckAfterBlocks since it was broadcast. For a sender whose attempts
   * land in guard order, also since the last landing from its address: one waiting its turn behind
   * ours that are landing (a burst of nonces) is queued, not stuck, and a fee bump would only pay more.
   */
  private stuck(attempt: OpenAttempt, landings: ReadonlyMap<string, number>): boolean {
    const landed = this.sender.landsInGuardOrder ? (landings.get(attempt.from) ?? 0) : 0;
    const since = Math.max(attempt.broadcastHeight ?? this.head, landed);
    return this.head - since >= this.sender.stuckAfterBlocks;
  }

  private async apply(
    attempt: OpenAttempt,
    status: Exclude<AttemptStatus, MinedStatus>,
    landings: ReadonlyMap<string, number>,
  ): Promise<void> {
    const log = { attempt: attempt.id, txHash: attempt.txHash, orders: attempt.orders.map((o) => o.id) };
    switch (status.state) {
      case "failed":
        // A failure is as final as a success, and no more: only once its block is as deep as the
        // chain's confirmations. Shallower, a reorg may still drop it and the same signed
        // transaction land successfully (the send then confirms, the transfer completes, nothing
        // is refunded); until then the attempt stays watched as it is.
        if (this.head - status.blockHeight + 1 < this.confirmations) {
          this.logger.debug({ ...log, height: status.blockHeight }, "send failed on chain; final once deep enough");
          return;
        }
        await this.fenced(async (tx) => {
          await markFailed(tx, attempt.id, status);
          await this.sender.recordStatus?.(tx, attempt, status);
        });
        this.logger.warn({ ...log, reason: status.reason }, "send failed on chain");
        return;
      case "expired": {
        const requeued = await this.fenced(async (tx) => {
          await this.sender.recordStatus?.(tx, attempt, status);
          return markExpired(tx, attempt.id, status.reason);
        });
        this.logger.warn({ ...log, reason: status.reason, requeued }, "attempt expired");
        return;
      }
      case "unknown":
      case "pending":
        if (attempt.state === "mined") {
          await this.fenced(async (tx) => {
            await markReorged(tx, attempt.id, this.head);
            await this.sender.recordStatus?.(tx, attempt, status);
          });
          this.logger.warn({ ...log, height: attempt.blockHeight }, "a mined send left the chain: watched again");
          return;
        }
        if (attempt.superseded || attempt.landedElsewhere) return;
        // A replacement not stored (its hash is a refused one's, or the coins cannot pay more)
        // leaves the attempt to itself: dropped by a reorg, its own bytes go out again.
        if (this.stuck(attempt, landings) && (await this.replace(attempt))) return;
        if (status.state === "unknown") {
          // Dropped or never propagated: the same bytes again (idempotent), the stuck clock running.
          await this.sender.broadcast(attempt).catch(async (error: unknown) => {
            if (error instanceof BroadcastRefusedError) return this.refuse(attempt, error.message);
            this.logger.warn({ ...log, err: String(error) }, "rebroadcast failed");
          });
        }
        return;
    }
  }

  /**
   * A stuck attempt: a replacement with the same guard is stored, then broadcast; both stay
   * tracked. False when none was stored.
   */
  private async replace(attempt: OpenAttempt): Promise<boolean> {
    const orders = await ordersOf(this.db, attempt.id);
    const stored = await this.fenced(async (tx) => {
      const signed = await this.sender.replace(tx, attempt, orders);
      if (!signed) return null;
      const id = await insertAttempt(tx, this.sender.chain, signed, attempt.id);
      return { ...signed, id };
    }).catch(async (error: unknown) => {
      // A replacement signed to a stored hash: not stored; the attempt stays out, replaced later.
      if (!(error instanceof AttemptHashTakenError)) throw error;
      await recordHashRefusal(this.db, this.logger, error, "send", { attempt: attempt.id });
      return null;
    });
    if (!stored) return false;
    this.logger.info(
      { attempt: attempt.id, replacement: stored.id, txHash: stored.txHash, fee: stored.fee },
      "stuck attempt replaced",
    );
    await this.broadcast(justStored(this.sender.chain, stored, attempt.id));
    return true;
  }

  /**
   * (c) Queued sends, first come first served, up to maxBatch per chain transaction. Up to the
   * sender's preparesAhead chain transactions are prepared (outside any transaction), then signed and
   * stored in one database transaction: each still allocates its own guard and is stored with it,
   * and the round trips of BEGIN, the lease guard and COMMIT are shared. Broadcast after the commit.
   */
  private async signQueued(): Promise<void> {
    const signable = await listSignable(this.db, this.sender.chain, SIGN_PER_TICK);
    // Broadcasts run in the order signed, behind the signing (which never waits for them).
    let broadcasts = Promise.resolve();
    try {
      let next = 0;
      let stop = false;
      while (next < signable.length && !stop) {
        const chunk: Prepared[] = [];
        while (chunk.length < (this.sender.preparesAhead ?? 1) && next < signable.length) {
          const orders = batchAt(signable, next, this.sender.maxBatch);
          next += orders.length;
          const prepared = await this.prepare(orders);
          if (prepared === "stop") {
            stop = true;
            break;
          }
          if (prepared) chunk.push(prepared);
        }
        if (chunk.length === 0) continue;
        const stored = await this.signChunk(chunk);
        broadcasts = broadcasts.then(() => this.broadcastChunk(stored));
      }
    } finally {
      await broadcasts;
      await this.flushBroadcast();
    }
  }

  /**
   * One signed chunk's broadcasts issued at once (in nonce order: a batching sender sends them in
   * one request), then judged in that order, a refusal's filler one at a time as in broadcast().
   */
  private async broadcastChunk(attempts: StoredAttempt[]): Promise<void> {
    const outcomes = await Promise.all(
      attempts.map((attempt) =>
        this.sender.broadcast(attempt).then(
          () => null,
          (error: unknown) => ({ error }),
        ),
      ),
    );
    for (const [i, attempt] of attempts.entries()) {
      const outcome = outcomes[i];
      if (outcome === null) {
        this.onStage?.({ stage: "broadcast", attemptId: attempt.id });
        this.broadcasted.push(attempt.id);
      } else if (outcome?.error instanceof BroadcastRefusedError) {
        await this.refuse(attempt, outcome.error.message);
      } else {
        this.logger.warn(
          { attempt: attempt.id, txHash: attempt.txHash, err: String(outcome?.error) },
          "broadcast failed",
        );
      }
    }
  }

  /** prepare() of one chain transaction's orders; null when they wait for funds or were refused. */
  private async prepare(orders: SendOrder[], split = true): Promise<Prepared | null | "stop"> {
    const ids = orders.map((o) => o.id);
    try {
      return { orders, prepared: await this.sender.prepare(orders) };
    } catch (error) {
      if (error instanceof InsufficientTreasuryFundsError && orders.length > 1 && split) {
        // The batch as a whole is short: a send the treasury cannot cover must not hold up the others.
        return this.prepareAffordable(orders);
      }
      if (error instanceof InsufficientTreasuryFundsError) {
        await this.fenced((tx) => markWaitingFunds(tx, ids, error.message));
        this.logger.info({ orders: ids, reason: error.message }, "send waits for treasury funds");
        return null;
      }
      if (error instanceof AppError && !error.retryable && orders.length > 1 && split) {
        // One order of a batch is wrong for this chain: it alone is refused, its siblings go out without it.
        return this.prepareWithout(orders);
      }
      if (error instanceof AppError && !error.retryable) {
        // The request itself is wrong for this chain (unknown asset, bad address): it never will be right.
        await this.fenced((tx) => markRejected(tx, ids, error.message));
        this.logger.warn({ orders: ids, reason: error.message }, "send refused by the chain's sender");
        return null;
      }
      // The node or the sender cannot prepare now: the rest waits for the next pass.
      this.logger.warn({ orders: ids, err: String(error) }, "could not prepare a send");
      return "stop";
    }
  }

  /** A batch the sender refused: each order prepared alone, the refused ones rejected, the rest batched again. */
  private async prepareWithout(orders: SendOrder[]): Promise<Prepared | null | "stop"> {
    const fine = await this.prepareEachAlone(orders);
    if (fine === "stop") return "stop";
    if (fine.length === 0) return null;
    // Each passed alone: together they are not split again (a refusal now rejects them all, as before).
    return this.prepare(
      fine.flatMap((f) => f.orders),
      false,
    );
  }

  /** Each order of a split batch prepared alone, in order: those that pass (the others waited or were refused). */
  private async prepareEachAlone(orders: SendOrder[]): Promise<Prepared[] | "stop"> {
    const fine: Prepared[] = [];
    for (const order of orders) {
      const alone = await this.prepare([order]);
      if (alone === "stop") return "stop";
      if (alone) fine.push(alone);
    }
    return fine;
  }

  /**
   * A batch the treasury cannot cover as a whole: each order prepared alone (those it cannot cover
   * even alone wait for funds, refused ones fail), and the ones it can go out together, or, when
   * they are still short together, the oldest alone (the others are batched again next pass).
   */
  private async prepareAffordable(orders: SendOrder[]): Promise<Prepared | null | "stop"> {
    const fine = await this.prepareEachAlone(orders);
    if (fine === "stop") return "stop";
    const [oldest] = fine;
    if (oldest === undefined || fine.length === 1) return oldest ?? null;
    const together = fine.flatMap((f) => f.orders);
    try {
      return { orders: together, prepared: await this.sender.prepare(together) };
    } catch (error) {
      if (error instanceof InsufficientTreasuryFundsError) return oldest;
      this.logger.warn({ orders: together.map((o) => o.id), err: String(error) }, "could not prepare a send");
      return "stop";
    }
  }

  /**
   * Signs and stores the prepared chain transactions in one transaction; [] when one was taken
   * meanwhile. One that signs to the hash of a stored attempt (the same coins to the same outputs
   * at the same tip as a failed one) rolls the chunk back: it is refused for this pass (counted, its
   * sends stay queued) and the rest of the chunk is signed again without it.
   */
  private async signChunk(chunk: Prepared[]): Promise<StoredAttempt[]> {
    const issued: Issued = { hashes: [], written: null };
    try {
      return await this.signChunkOnce(chunk, issued);
    } catch (error) {
      // COMMIT only says the transaction rolled back; the inserts' own outcome says why.
      const why = issued.written
        ? await issued.written.then(
            () => error,
            (reason: unknown) => reason,
          )
        : error;
      if (!(why instanceof AttemptHashTakenError)) throw error;
      await recordHashRefusal(this.db, this.logger, why, "send", {
        orders: chunk.flatMap((c) => c.orders.map((o) => o.id)),
      });
      const taken = new Set(why.taken.map((t) => t.txHash));
      const rest = chunk.filter((_, i) => !taken.has(issued.hashes[i] as string));
      // Each round drops at least one: a taken hash this chunk did not sign is not ours to skip.
      if (rest.length === chunk.length) throw error;
      return rest.length === 0 ? [] : this.signChunk(rest);
    }
  }

  /** signChunk's one transaction; `issued` learns the signed hashes and the inserts' outcome. */
  private async signChunkOnce(chunk: Prepared[], issued: Issued): Promise<StoredAttempt[]> {
    const ids = chunk.flatMap((c) => c.orders.map((o) => o.id));
    const stored = await this.db
      .tx(async (tx) => {
        // The guard and the sends' locks go out with the sender's first statement (pipelined): if
        // either refuses, every allocation of sign() below is rolled back with the rest.
        const checks = Promise.all([assertLeader(tx, this.lease, this.fence), lockSignable(tx, ids)]);
        checks.catch(() => undefined);
        // Every sign() issued at once: their guard statements go out pipelined, allocated in this
        // order (see preparesAhead), instead of one round trip each. All settle before the
        // transaction ends, so a failure rolls back with no statement of a sibling in flight.
        const settled = await Promise.allSettled(
          chunk.map(({ orders, prepared }) => this.sender.sign(tx, orders, prepared)),
        );
        const signed: SignedAttempt[] = [];
        for (const s of settled) {
          if (s.status === "rejected") throw s.reason;
          signed.push(s.value);
        }
        // Not awaited: the inserts (four statements for the chunk) go out with the next statement
        // or COMMIT, which fails if they did.
        const inserted = issueAttemptInserts(tx, this.sender.chain, signed);
        issued.hashes = signed.map((x) => x.txHash);
        issued.written = inserted.written;
        const out = signed.map((s, i) => ({ ...s, id: inserted.ids[i] as string }));
        for (const { id } of out) this.onStage?.({ stage: "signed", attemptId: id });
        const [, free] = await checks;
        if (!free) throw new SendTakenError();
        return out;
      })
      .catch((error: unknown) => {
        if (error instanceof SendTakenError) return [];
        throw error;
      });
    for (const s of stored) this.onStage?.({ stage: "stored", attemptId: s.id });
    return stored.map((s) => justStored(this.sender.chain, s, null));
  }
}

type MinedStatus = Extract<AttemptStatus, { state: "mined" }>;

/** The orders of one chain transaction from `start`: up to `max`, an order to be signed alone on its own. */
function batchAt(signable: readonly SendOrder[], start: number, max: number): SendOrder[] {
  const batch: SendOrder[] = [];
  for (let i = start; i < signable.length && batch.length < max; i++) {
    const order = signable[i] as SendOrder;
    if (order.alone && batch.length > 0) break;
    batch.push(order);
    if (order.alone) break;
  }
  return batch;
}

/** One chain transaction's orders and what prepare() gave for them. */
interface Prepared {
  orders: SendOrder[];
  prepared: unknown;
}

/** What signChunkOnce issued: each chain transaction's hash (in chunk order) and its inserts' outcome. */
interface Issued {
  hashes: string[];
  written: Promise<void> | null;
}

/** The sends about to be signed were taken meanwhile (another pass signed them): roll back. */
class SendTakenError extends Error {}

/** An attempt as insertAttempt has just stored it (state signed), for broadcasting it at once. */
export function justStored(
  chain: ChainId,
  signed: SignedAttempt & { id: string },
  replaces: string | null,
): StoredAttempt {
  return {
    ...signed,
    chain,
    state: "signed",
    replaces,
    blockHeight: null,
    blockHash: null,
    createdAt: new Date(),
    broadcastAt: null,
  };
}

/** Per sending address, the highest block one of its watched attempts is in (stored, or found this pass). */
function lastLandings(
  open: readonly OpenAttempt[],
  mined: ReadonlyArray<{ attempt: OpenAttempt; status: MinedStatus }>,
): Map<string, number> {
  const landings = new Map<string, number>();
  const landed = (from: string, height: number) => landings.set(from, Math.max(height, landings.get(from) ?? 0));
  for (const a of open) if (a.state === "mined" && a.blockHeight !== null) landed(a.from, a.blockHeight);
  for (const { attempt, status } of mined) landed(attempt.from, status.blockHeight);
  return landings;
}
