import { randomUUID } from "node:crypto";
import { type Logger, LruCache } from "@mp/core";
import type { Database } from "@mp/db";
import type { EncryptionKeyring } from "@mp/encryption";
import pg from "pg";
import { activeSigningSecrets } from "./endpoint-secrets.ts";
import { type StoredEvent, testWebhookBody, webhookBody } from "./event-body.ts";
import { createWebhookPoster, type PostOutcome, type WebhookPoster } from "./post-webhook.ts";
import { nextRetryDelayMs, parseRetryAfter, RETRY_DELAYS_MS } from "./retry-schedule.ts";
import { signWebhook, WebhookSigner } from "./signing.ts";
import type { ResolveHost, WebhookEnvironment } from "./url-guard.ts";

/** The channel the fan-out trigger (migration 0078) and the enqueue paths notify. */
export const DELIVERY_CHANNEL = "webhook_deliveries";

/** An endpoint failing without a single success for this long is disabled (`failing`). */
export const FAILING_DISABLE_AFTER_MS = 5 * 24 * 3_600_000;

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
  resolve?: ResolveHost;
}

export interface WebhookWorker {
  /** Claim now (something was enqueued in this process). */
  wake(): void;
  /** Stops claiming, lets the requests in flight finish (each within its deadline), writes their results. */
  stop(): Promise<void>;
}

interface ClaimedRow {
  id: string;
  merchant_id: string;
  environment: string;
  endpoint_id: string;
  event_id: string | null;
  attempts: number;
  created_at: Date;
  url: string;
  endpoint_status: "enabled" | "disabled";
  secret_version: number;
  /** The event's columns (NULL for a test delivery), read in the claim's own statement. */
  event_type: string | null;
  event_environment: string | null;
  object_type: string | null;
  object_id: string | null;
  object_version: number | null;
  data_json: string | null;
  idempotency_key: string | null;
  event_created_at: Date | null;
}

function eventOf(row: ClaimedRow): StoredEvent | undefined {
  if (!row.event_id || row.event_type === null || row.data_json === null || row.event_created_at === null)
    return undefined;
  return {
    id: row.event_id,
    type: row.event_type,
    environment: row.event_environment ?? row.environment,
    object_type: row.object_type ?? "",
    object_id: row.object_id ?? "",
    object_version: row.object_version ?? 1,
    data_json: row.data_json,
    idempotency_key: row.idempotency_key,
    created_at: row.event_created_at,
  };
}

/** One endpoint's share of this process: claimed and not finished, sending now, claimed and waiting. */
interface Lane {
  claimed: number;
  sending: number;
  waiting: ClaimedRow[];
}

interface AttemptResult {
  deliveryId: string;
  endpointId: string;
  attempt: number;
  attemptedAt: Date;
  outcome: PostOutcome;
  status: "pending" | "succeeded" | "failed" | "canceled";
  nextAttemptAt: Date | null;
  /** Answered 410 Gone: the endpoint is disabled. */
  gone: boolean;
  /** No request was made (endpoint disabled meanwhile): no attempt row, no effect on the endpoint. */
  skipped: boolean;
}

/**
 * Claims up to $3 (free slots) due deliveries: for each enabled endpoint below its cap ($2), its
 * oldest due ones up to its free slots, through the (endpoint_id, next_attempt_at) index. Walking
 * endpoints, not one queue of all deliveries, is what keeps a backed-up or hanging endpoint from
 * costing the others anything: its rows are never scanned while it is at its cap.
 */
const CLAIM = `
WITH busy AS (
  SELECT * FROM unnest($1::uuid[], $2::int[]) AS b (endpoint_id, in_flight)
), chosen AS (
  SELECT due.id
    FROM webhook_endpoints e
    LEFT JOIN busy ON busy.endpoint_id = e.id
   CROSS JOIN LATERAL (
     SELECT d.id FROM webhook_deliveries d
      WHERE d.endpoint_id = e.id AND d.status = 'pending' AND d.next_attempt_at <= now()
        AND (d.claimed_until IS NULL OR d.claimed_until < now())
      ORDER BY d.next_attempt_at
      LIMIT $3::int - COALESCE(busy.in_flight, 0)
      FOR UPDATE SKIP LOCKED
   ) due
   WHERE e.status = 'enabled' AND COALESCE(busy.in_flight, 0) < $3::int
   LIMIT $4
), claimed AS (
  UPDATE webhook_deliveries d
     SET attempts = d.attempts + 1, claimed_until = now() + make_interval(secs => $5)
    FROM chosen, webhook_endpoints e, merchants m
   WHERE d.id = chosen.id AND e.id = d.endpoint_id AND m.id = d.merchant_id
  RETURNING d.id, d.merchant_id, m.environment, d.endpoint_id, d.event_id, d.attempts, d.created_at,
            e.url, e.status AS endpoint_status, e.secret_version
)
SELECT claimed.*, ev.type AS event_type, ev.environment AS event_environment, ev.object_type, ev.object_id,
       ev.object_version, ev.data::text AS data_json, ev.idempotency_key, ev.created_at AS event_created_at
  FROM claimed LEFT JOIN events ev ON ev.id = claimed.event_id`;

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
  const pollIntervalMs = options.pollIntervalMs ?? 250;
  const failingAfterMs = options.failingDisableAfterMs ?? FAILING_DISABLE_AFTER_MS;
  const poster: WebhookPoster = createWebhookPoster({
    environment: options.environment,
    timeoutMs,
    ...(options.resolve ? { resolve: options.resolve } : {}),
  });
  // Opened secrets per endpoint and rotation (secret_version): a rotation is seen at the next claim.
  const signers = new LruCache<string, Array<{ signer: WebhookSigner; expiresAt: Date | null }>>(10_000);

  let stopping = false;
  /** Claimed and not yet written (global slots). */
  let unwritten = 0;
  // Per endpoint: claimed and not finished (sending or waiting), sending, and the claimed rows waiting.
  // Up to `perEndpoint` more than it sends are claimed ahead, so its next requests never wait for a
  // claim's round trip; a hanging endpoint's waiting rows wait at most one deadline, well inside the lease.
  const lanes = new Map<string, Lane>();
  const running = new Set<Promise<void>>();
  let wakeUp: (() => void) | undefined;
  let woken = false;
  const wake = () => {
    woken = true;
    wakeUp?.();
  };

  // ---- results: written in batches, one transaction per batch ----
  const results: AttemptResult[] = [];
  let flushing: Promise<void> | undefined;
  const flush = async (): Promise<void> => {
    while (results.length > 0) {
      const batch = results.splice(0, results.length);
      try {
        await writeResults(batch);
      } catch (error) {
        // Unwritten results are not lost work: their leases end and the deliveries are sent again.
        logger.warn({ err: String(error), results: batch.length }, "webhook results not written");
        if (stopping) return;
        results.unshift(...batch);
        await sleep(1_000);
        continue;
      }
      unwritten -= batch.length;
      wake();
    }
  };
  const scheduleFlush = (): Promise<void> => {
    flushing ??= flush().finally(() => {
      flushing = undefined;
    });
    return flushing;
  };
  const push = (result: AttemptResult) => {
    results.push(result);
    void scheduleFlush();
  };

  async function writeResults(batch: AttemptResult[]): Promise<void> {
    const attempts = batch.filter((r) => !r.skipped);
    const succeededEndpoints = [
      ...new Set(
        attempts.filter((r) => r.outcome.statusCode !== undefined && r.status === "succeeded").map((r) => r.endpointId),
      ),
    ].sort();
    const failedEndpoints = [...new Set(attempts.filter((r) => r.status !== "succeeded").map((r) => r.endpointId))]
      .filter((id) => !succeededEndpoints.includes(id))
      .sort();
    const goneEndpoints = [...new Set(attempts.filter((r) => r.gone).map((r) => r.endpointId))].sort();
    const disabled = await db.tx(async (c) => {
      const pending: Array<Promise<unknown>> = [];
      if (attempts.length > 0) {
        pending.push(
          c.query(
            `INSERT INTO webhook_delivery_attempts
               (id, delivery_id, endpoint_id, attempt, attempted_at, status_code, latency_ms, error, response_body, succeeded)
             SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::uuid[], $4::int[], $5::timestamptz[], $6::int[], $7::int[],
                                  $8::text[], $9::text[], $10::boolean[])`,
            [
              attempts.map(() => randomUUID()),
              attempts.map((r) => r.deliveryId),
              attempts.map((r) => r.endpointId),
              attempts.map((r) => r.attempt),
              attempts.map((r) => r.attemptedAt),
              attempts.map((r) => r.outcome.statusCode ?? null),
              attempts.map((r) => r.outcome.latencyMs),
              attempts.map((r) => r.outcome.error ?? null),
              attempts.map((r) => r.outcome.responseBody ?? null),
              attempts.map((r) => r.status === "succeeded"),
            ],
          ),
        );
      }
      pending.push(
        c.query(
          `UPDATE webhook_deliveries d
              SET status = u.status, next_attempt_at = COALESCE(u.next_attempt_at, d.next_attempt_at), claimed_until = NULL,
                  last_status_code = u.status_code, last_error = u.error,
                  completed_at = CASE WHEN u.status = 'pending' THEN NULL ELSE now() END
             FROM unnest($1::uuid[], $2::int[], $3::text[], $4::timestamptz[], $5::int[], $6::text[])
                  AS u (id, attempts, status, next_attempt_at, status_code, error)
            WHERE d.id = u.id AND d.attempts = u.attempts AND d.status = 'pending'`,
          [
            batch.map((r) => r.deliveryId),
            batch.map((r) => r.attempt),
            batch.map((r) => r.status),
            batch.map((r) => r.nextAttemptAt),
            batch.map((r) => r.outcome.statusCode ?? null),
            batch.map((r) => r.outcome.error ?? null),
          ],
        ),
      );
      if (succeededEndpoints.length > 0) {
        pending.push(
          c.query(
            "UPDATE webhook_endpoints SET failing_since = NULL WHERE id = ANY($1::uuid[]) AND failing_since IS NOT NULL",
            [succeededEndpoints],
          ),
        );
      }
      if (failedEndpoints.length > 0) {
        pending.push(
          c.query(
            "UPDATE webhook_endpoints SET failing_since = $2 WHERE id = ANY($1::uuid[]) AND failing_since IS NULL",
            [failedEndpoints, earliest(attempts.filter((r) => failedEndpoints.includes(r.endpointId)))],
          ),
        );
      }
      let disabledRows: Array<{ id: string; merchant_id: string; disabled_reason: string }> = [];
      if (failedEndpoints.length > 0 || goneEndpoints.length > 0) {
        const disabling = c.query<{ id: string; merchant_id: string; disabled_reason: string }>(
          `WITH disabled AS (
             UPDATE webhook_endpoints
                SET status = 'disabled', disabled_at = now(), updated_at = now(),
                    disabled_reason = CASE WHEN id = ANY($1::uuid[]) THEN 'gone' ELSE 'failing' END
              WHERE status = 'enabled'
                AND (id = ANY($1::uuid[]) OR (id = ANY($2::uuid[]) AND failing_since <= now() - make_interval(secs => $3)))
             RETURNING id, merchant_id, disabled_reason
           ), canceled AS (
             UPDATE webhook_deliveries SET status = 'canceled', completed_at = now(), last_error = 'endpoint disabled'
              WHERE endpoint_id IN (SELECT id FROM disabled) AND status = 'pending'
           )
           SELECT * FROM disabled`,
          [goneEndpoints, failedEndpoints, failingAfterMs / 1000],
        );
        pending.push(disabling.then((r) => (disabledRows = r.rows)));
      }
      await Promise.all(pending);
      return disabledRows;
    });
    for (const endpoint of disabled) {
      // Flagged for the operator and the merchant (status disabled, disabled_reason in the API).
      logger.warn(
        { endpointId: endpoint.id, merchantId: endpoint.merchant_id, reason: endpoint.disabled_reason },
        "webhook endpoint disabled",
      );
    }
  }

  // ---- claiming and sending ----
  async function signersFor(rows: ClaimedRow[]): Promise<void> {
    const missing = [
      ...new Set(rows.filter((r) => !signers.peek(`${r.endpoint_id}:${r.secret_version}`)).map((r) => r.endpoint_id)),
    ];
    if (missing.length === 0) return;
    const opened = await activeSigningSecrets(db, options.keyring, missing);
    for (const row of rows) {
      const list = opened.get(row.endpoint_id);
      if (!list) continue;
      signers.getOrCreate(`${row.endpoint_id}:${row.secret_version}`, () =>
        list.map((s) => ({ signer: new WebhookSigner(s.secret), expiresAt: s.expiresAt })),
      );
    }
  }

  async function claim(free: number): Promise<void> {
    const busy = [...lanes];
    const { rows } = await db.query<ClaimedRow>(CLAIM, [
      busy.map(([id]) => id),
      busy.map(([, lane]) => lane.claimed),
      2 * perEndpoint,
      free,
      leaseMs / 1000,
    ]);
    if (rows.length === 0) return;
    unwritten += rows.length;
    for (const row of rows) {
      const lane: Lane = lanes.get(row.endpoint_id) ?? { claimed: 0, sending: 0, waiting: [] };
      lane.claimed++;
      lanes.set(row.endpoint_id, lane);
    }
    try {
      await signersFor(rows);
    } catch (error) {
      // Their attempts fail (no secret to sign with) and are retried on the schedule.
      logger.warn({ err: String(error) }, "webhook claim could not open its signing secrets");
    }
    for (const row of rows) {
      const lane = lanes.get(row.endpoint_id);
      lane?.waiting.push(row);
      if (lane) pump(row.endpoint_id, lane);
    }
  }

  /** Starts the endpoint's waiting deliveries while it sends fewer than its cap. */
  function pump(endpointId: string, lane: Lane) {
    while (lane.sending < perEndpoint && !stopping) {
      const next = lane.waiting.shift();
      if (!next) break;
      lane.sending++;
      const delivery = deliver(next)
        .catch((error: unknown) => logger.error({ err: String(error), endpointId }, "webhook delivery crashed"))
        .finally(() => {
          running.delete(delivery);
          lane.sending--;
          lane.claimed--;
          if (lane.claimed === 0) lanes.delete(endpointId);
          else pump(endpointId, lane);
          wake();
        });
      running.add(delivery);
    }
  }

  async function deliver(row: ClaimedRow): Promise<void> {
    const attemptedAt = new Date();
    let outcome: PostOutcome;
    let skipped = false;
    if (row.endpoint_status !== "enabled") {
      skipped = true;
      outcome = { latencyMs: 0, error: "endpoint disabled" };
    } else {
      const event = eventOf(row);
      const keys = (signers.peek(`${row.endpoint_id}:${row.secret_version}`) ?? []).filter(
        (k) => k.expiresAt === null || k.expiresAt > attemptedAt,
      );
      if ((row.event_id && !event) || keys.length === 0) {
        outcome = { latencyMs: 0, error: "event or signing secret not loaded" };
      } else {
        const body = event
          ? webhookBody(event)
          : testWebhookBody({ id: row.id, endpointId: row.endpoint_id, createdAt: row.created_at }, row.environment);
        const headers = signWebhook(
          event ? event.id : row.id,
          attemptedAt,
          body,
          keys.map((k) => k.signer),
        );
        outcome = await poster.post(row.url, headers, body);
      }
    }
    push(decide(row, attemptedAt, outcome, skipped));
  }

  function decide(row: ClaimedRow, attemptedAt: Date, outcome: PostOutcome, skipped: boolean): AttemptResult {
    const base = {
      deliveryId: row.id,
      endpointId: row.endpoint_id,
      attempt: row.attempts,
      attemptedAt,
      outcome,
      skipped,
    };
    const code = outcome.statusCode;
    if (skipped) return { ...base, status: "canceled", nextAttemptAt: null, gone: false };
    if (code !== undefined && code >= 200 && code < 300)
      return { ...base, status: "succeeded", nextAttemptAt: null, gone: false };
    if (code === 410) return { ...base, status: "failed", nextAttemptAt: null, gone: true };
    const retryAfter = code === 429 ? parseRetryAfter(outcome.retryAfter) : undefined;
    const delay = nextRetryDelayMs(row.attempts, schedule, retryAfter);
    if (delay === undefined) return { ...base, status: "failed", nextAttemptAt: null, gone: false };
    return { ...base, status: "pending", nextAttemptAt: new Date(Date.now() + delay), gone: false };
  }

  // ---- wake-ups: NOTIFY on a real server, the poll everywhere ----
  let listener: pg.Client | undefined;
  const listen = async (): Promise<void> => {
    if (db.engine !== "postgresql" || stopping) return;
    const client = new pg.Client({ connectionString: db.connectionString });
    client.on("notification", wake);
    client.on("error", (error) => {
      logger.warn({ err: error.message }, "webhook listener lost; polling until it reconnects");
      listener = undefined;
      client.end().catch(() => {});
      setTimeout(() => void listen().catch(() => {}), 1_000).unref();
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${DELIVERY_CHANNEL}`);
      listener = client;
    } catch (error) {
      logger.warn({ err: String(error) }, "webhook listener could not connect; polling");
      await client.end().catch(() => {});
      setTimeout(() => void listen().catch(() => {}), 5_000).unref();
    }
  };
  await listen();

  const loop = (async () => {
    while (!stopping) {
      woken = false;
      const free = concurrency - unwritten;
      let full = false;
      if (free > 0) {
        try {
          const before = unwritten;
          await claim(free);
          full = unwritten - before === free;
        } catch (error) {
          logger.warn({ err: String(error) }, "webhook claim failed");
          await sleep(1_000);
        }
      }
      if (full || woken) continue;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, pollIntervalMs);
        wakeUp = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      wakeUp = undefined;
    }
  })();

  return {
    wake,
    async stop() {
      if (stopping) return;
      stopping = true;
      wake();
      await loop;
      // Claimed but not started: given back now rather than at the end of their lease.
      const waiting = [...lanes.values()].flatMap((lane) => lane.waiting.splice(0));
      if (waiting.length > 0) {
        await db
          .query(
            `UPDATE webhook_deliveries d SET claimed_until = NULL, attempts = d.attempts - 1
               FROM unnest($1::uuid[], $2::int[]) AS w (id, attempts)
              WHERE d.id = w.id AND d.attempts = w.attempts AND d.status = 'pending'`,
            [waiting.map((r) => r.id), waiting.map((r) => r.attempts)],
          )
          .catch((error: unknown) => logger.warn({ err: String(error) }, "claimed webhook deliveries not given back"));
      }
      await Promise.allSettled([...running]);
      await flushing;
      await scheduleFlush();
      poster.close();
      await listener?.end().catch(() => {});
    },
  };
}

function earliest(results: AttemptResult[]): Date {
  return new Date(Math.min(...results.map((r) => r.attemptedAt.getTime())));
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
