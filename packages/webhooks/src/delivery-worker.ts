import type { Logger } from "@mp/core";
import type { Database } from "@mp/db";
import type { EncryptionKeyring } from "@mp/encryption";
import { attemptResult } from "./attempt-result.ts";
import { claimDepth, depthLimits, minClaimOf } from "./claim-depth.ts";
import { runClaimLoop } from "./claim-loop.ts";
import { type ClaimedDelivery, claimDueDeliveries, releaseClaims } from "./claimed-delivery.ts";
import { createDeliveryLanes } from "./delivery-lanes.ts";
import { listenForDeliveries } from "./delivery-listener.ts";
import { createEndpointSigners } from "./endpoint-signers.ts";
import { createWebhookPoster, type PostOutcome } from "./post-webhook.ts";
import { createResultWriter } from "./result-writer.ts";
import { RETRY_DELAYS_MS } from "./retry-schedule.ts";
import { sendDelivery } from "./send-delivery.ts";
import type { ResolveHost, WebhookEnvironment } from "./url-guard.ts";
import { createWakeUp } from "./wake-up.ts";
import { writeAttemptResults } from "./write-attempt-results.ts";

/** An endpoint failing without a single success for this long is disabled (`failing`). */
export const FAILING_DISABLE_AFTER_MS = 5 * 24 * 3_600_000;

/** How long a result waits for others to be written with it (resultGatherMs). */
const RESULT_GATHER_MS = 20;

/** How often the lanes are checked for an endpoint that stopped answering while claimed far ahead. */
const SHED_CHECK_MS = 250;

export interface WebhookWorkerOptions {
  db: Database;
  keyring: EncryptionKeyring;
  logger: Logger;
  /** The deployment's (PAYMENTS_ENV): decides which receivers are allowed (url-guard.ts). */
  environment: WebhookEnvironment;
  /** Requests in flight at once in this process (default 256). */
  concurrency?: number;
  /** Requests in flight at once to one endpoint in this process (default 16): a slow one holds no more. */
  perEndpointConcurrency?: number;
  /** One attempt's deadline (default 15 s). */
  timeoutMs?: number;
  /** How long a claim is ours (default timeout + 45 s): after a crash the delivery is due again then. */
  leaseMs?: number;
  retrySchedule?: readonly number[];
  /** Idle poll for retries coming due (and the only wake-up on the embedded database). */
  pollIntervalMs?: number;
  failingDisableAfterMs?: number;
  /**
   * How long a finished delivery's result waits for others to be written with (default 20 ms): one
   * statement per batch, so per ~30 deliveries at a backlog's pace rather than per few.
   */
  resultGatherMs?: number;
  resolve?: ResolveHost;
}

export interface WebhookWorker {
  /** Claim now (something was enqueued in this process). */
  wake(): void;
  /** Stops claiming, lets the requests in flight finish (each within its deadline), writes their results. */
  stop(): Promise<void>;
}

/**
 * The delivery worker: claims due deliveries with FOR UPDATE SKIP LOCKED (any number of workers, in
 * any number of processes, never claim the same one), sends each signed, and records every attempt.
 *
 * Isolation of endpoints: at most `perEndpointConcurrency` requests per endpoint are in flight, and
 * the claim itself skips the deliveries of an endpoint at its cap, so a hanging endpoint holds at
 * most that many of the `concurrency` slots for at most one deadline each; the others keep flowing.
 * A claim is a lease (claimed_until `leaseMs` ahead, attempts counted): a worker killed
 * mid-delivery leaves its deliveries due again when the lease ends, and a result is written only by
 * the claim that counted its attempt (the fence), so a late writer cannot undo a newer attempt.
 */
export async function startWebhookWorker(options: WebhookWorkerOptions): Promise<WebhookWorker> {
  const { db, logger } = options;
  const concurrency = options.concurrency ?? 256;
  const perEndpoint = options.perEndpointConcurrency ?? 16;
  const timeoutMs = options.timeoutMs ?? 15_000;
  const leaseMs = options.leaseMs ?? timeoutMs + 45_000;
  const schedule = options.retrySchedule ?? RETRY_DELAYS_MS;
  const failingAfterMs = options.failingDisableAfterMs ?? FAILING_DISABLE_AFTER_MS;
  const poster = createWebhookPoster({
    environment: options.environment,
    timeoutMs,
    ...(options.resolve ? { resolve: options.resolve } : {}),
  });
  const signers = createEndpointSigners(db, options.keyring);

  let stopping = false;
  /** Claimed and not finished (sending, or waiting to be sent): at most `concurrency`. */
  let held = 0;
  /** Claimed and not yet written (held, or finished with its result waiting to be written). */
  let unwritten = 0;
  // Requests take the process's slots from their claim to their end. Results waiting to be written
  // keep their deliveries claimed (a crash sends those again) but make no request: they have slots of
  // their own, as many, so that at a backlog's pace (a batch gathered for resultGatherMs, then
  // written) they no longer starve the claims of requests to send (docs/benchmarks.md, webhooks).
  const free = () => Math.min(concurrency - held, 2 * concurrency - unwritten);
  /** The last claim took as many as the free slots allowed (so more may be due than it took). */
  let lastClaimFilled = true;
  const wakes = createWakeUp();
  const writer = createResultWriter({
    write: (batch) => writeAttemptResults(db, logger, batch, failingAfterMs),
    logger,
    stopping: () => stopping,
    written: (count) => {
      const slotBound = lastClaimFilled || free() <= 0;
      unwritten -= count;
      // Slots freed matter only to a claim that ran out of them: after one that took fewer rows than it
      // could, the endpoints were at their depth or had nothing due, and claiming again at each batch
      // written came back empty, a round trip during which a fast endpoint's lane ran dry.
      if (slotBound) wakes.wake();
    },
    gatherMs: options.resultGatherMs ?? RESULT_GATHER_MS,
    // A batch this large is written at once, without waiting out the gathering.
    maxBatch: Math.max(1, Math.floor(concurrency / 2)),
  });

  async function deliver(row: ClaimedDelivery): Promise<void> {
    const attemptedAt = new Date();
    const skipped = row.endpoint_status !== "enabled";
    const outcome: PostOutcome = skipped
      ? { latencyMs: 0, error: "endpoint disabled" }
      : await sendDelivery(poster, signers, row, attemptedAt);
    writer.push(attemptResult(row, attemptedAt, outcome, skipped, schedule));
  }
  // Claimed ahead of what is sent (claim-depth.ts), so an endpoint's requests never wait for a claim,
  // in batches of at least half of what it may hold ahead: a claim per many deliveries.
  const limits = depthLimits(concurrency, perEndpoint);
  const baseDepth = claimDepth(limits, undefined);
  const lanes = createDeliveryLanes({
    limits,
    deliver,
    logger,
    stopping: () => stopping,
    // A finished delivery wakes the claim only once its endpoint can be claimed for again.
    finished: (claimable) => {
      held--;
      if (claimable) wakes.nudge();
    },
  });

  async function claim(free: number, ask: boolean): Promise<number> {
    lanes.forgetIdle();
    const plan = lanes.plan();
    // Only nudged: a delivery finished while its endpoint looked claimable, but a claim answered since
    // may have refilled it. Unless an endpoint held is claimable now, the claim would come back empty,
    // and its round trip is one during which a fast endpoint's lane runs dry.
    if (!ask && ![...plan.values()].some((lane) => lane.claimed <= lane.depth - lane.minClaim)) return 0;
    const rows = await claimDueDeliveries(db, {
      held: plan,
      baseDepth,
      baseMinClaim: minClaimOf(limits, baseDepth),
      free,
      leaseMs,
    });
    lastClaimFilled = rows.length >= free;
    if (rows.length === 0) return 0;
    held += rows.length;
    unwritten += rows.length;
    lanes.hold(rows);
    try {
      await signers.load(rows);
    } catch (error) {
      // Their attempts fail (no secret to sign with) and are retried on the schedule.
      logger.warn({ err: String(error) }, "webhook claim could not open its signing secrets");
    }
    lanes.start(rows);
    return rows.length;
  }

  // An endpoint claimed far ahead that stops answering gives its extra waiting rows back within about
  // a second, so it holds no more slots than a slow one, and they are not kept past their lease.
  const shedding = setInterval(() => {
    const shed = lanes.shed();
    if (shed.length === 0) return;
    held -= shed.length;
    unwritten -= shed.length;
    wakes.wake();
    releaseClaims(db, shed).catch((error: unknown) =>
      logger.warn({ err: String(error), deliveries: shed.length }, "webhook deliveries shed not given back"),
    );
  }, SHED_CHECK_MS);
  shedding.unref();

  const listener = await listenForDeliveries(db, logger, wakes.wake, () => stopping);
  const loop = runClaimLoop({
    free,
    claim,
    stopping: () => stopping,
    wakes,
    pollIntervalMs: options.pollIntervalMs ?? 250,
    logger,
  });

  return {
    wake: wakes.wake,
    async stop() {
      if (stopping) return;
      stopping = true;
      clearInterval(shedding);
      wakes.wake();
      await loop;
      await releaseClaims(db, lanes.takeWaiting()).catch((error: unknown) =>
        logger.warn({ err: String(error) }, "claimed webhook deliveries not given back"),
      );
      await lanes.settled();
      await writer.flush();
      poster.close();
      await listener.close();
    },
  };
}
