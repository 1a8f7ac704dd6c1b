import type { Logger } from "@mp/core";
import type { Database, Queryable } from "@mp/db";
import { PgBoss } from "pg-boss";

/**
 * Background jobs on PostgreSQL (pg-boss). Jobs are enqueued inside the caller's transaction, so a
 * job exists exactly when the write that asked for it committed; workers retry failures with
 * backoff and jobs survive restarts. Handlers must be idempotent: a job can run again after a crash
 * between its effect and its completion, and must then change nothing.
 *
 * Several worker processes (on several machines) share the queues through the database alone. A
 * worker that dies or hangs mid-job stops heart-beating its job; every process's supervisor fails a
 * job whose heartbeat is older than `heartbeatSeconds` and it is retried by any live worker, so a
 * killed worker's job runs again within about heartbeatSeconds + the sweep interval + 1 s (see
 * jobRedeliveryBoundSeconds). pg-boss's own default is no heartbeat and a 15-minute expiry.
 */
export interface JobQueue {
  /** Enqueue within `client`'s open transaction (or on its own when no client is given). */
  send(
    name: string,
    data: object,
    options?: { client?: Queryable; startAfterSeconds?: number; singletonKey?: string },
  ): Promise<void>;
  work<T extends object>(
    name: string,
    handler: (data: T, job: { id: string; retryCount: number }) => Promise<void>,
  ): Promise<void>;
  stop(): Promise<void>;
}

export interface JobQueueOptions {
  db: Database;
  logger: Logger;
  /** Queues to create at start (idempotent). */
  queues: string[];
  pollingIntervalSeconds?: number;
  /**
   * How long a job may go without a heartbeat from its worker before it is failed and retried
   * elsewhere (JOB_HEARTBEAT_SECONDS; pg-boss accepts 10 or more). The worker beats every half of it.
   */
  heartbeatSeconds?: number;
}

export const DEFAULT_JOB_HEARTBEAT_SECONDS = 10;

/**
 * How often a process's supervisor looks for jobs whose heartbeat stopped: a fifth of the heartbeat,
 * so the sweep adds little to the bound. Each pass is a few indexed statements per queue, and only
 * one process runs it per interval (pg-boss claims each queue's monitor time in the database).
 */
function sweepIntervalSeconds(heartbeatSeconds: number): number {
  return Math.max(1, Math.round(heartbeatSeconds / 5));
}

/**
 * The longest a job whose worker was killed waits before another worker starts it again: the
 * heartbeat, one sweep, the first retry's delay (at most 1 s) and a poll.
 */
export function jobRedeliveryBoundSeconds(
  heartbeatSeconds = DEFAULT_JOB_HEARTBEAT_SECONDS,
  pollingIntervalSeconds = 0.5,
): number {
  return heartbeatSeconds + sweepIntervalSeconds(heartbeatSeconds) + 1 + pollingIntervalSeconds;
}

export async function createJobQueue(options: JobQueueOptions): Promise<JobQueue> {
  const heartbeatSeconds = options.heartbeatSeconds ?? DEFAULT_JOB_HEARTBEAT_SECONDS;
  const sweep = sweepIntervalSeconds(heartbeatSeconds);
  const boss = new PgBoss({
    connectionString: options.db.connectionString,
    max: 4,
    schema: "pgboss",
    superviseIntervalSeconds: sweep,
    monitorIntervalSeconds: sweep,
  });
  boss.on("error", (error: Error) => options.logger.warn({ err: error.message }, "job queue error"));
  await boss.start();
  const settings = { retryLimit: 10, retryDelay: 1, retryBackoff: true, retryDelayMax: 60, heartbeatSeconds };
  for (const name of options.queues) {
    await boss.createQueue(name, settings);
    // createQueue leaves an existing queue as it is: a queue created by an earlier version (without a
    // heartbeat) or under another JOB_HEARTBEAT_SECONDS takes this process's settings. Jobs keep the
    // heartbeat they were enqueued with; all processes of a deployment should share the setting.
    await boss.updateQueue(name, settings);
  }
  const polling = options.pollingIntervalSeconds ?? 0.5;
  return {
    async send(name, data, sendOptions) {
      const client = sendOptions?.client;
      await boss.send(name, data, {
        ...(sendOptions?.startAfterSeconds ? { startAfter: sendOptions.startAfterSeconds } : {}),
        ...(sendOptions?.singletonKey ? { singletonKey: sendOptions.singletonKey } : {}),
        ...(client ? { db: { executeSql: (text: string, values?: unknown[]) => client.query(text, values) } } : {}),
      });
    },
    async work(name, handler) {
      await boss.work(name, { pollingIntervalSeconds: polling, batchSize: 1 }, async (jobs) => {
        for (const job of jobs) {
          await handler(job.data as never, { id: job.id, retryCount: job.retryCount });
        }
      });
    },
    async stop() {
      await boss.stop({ graceful: true, timeout: 10_000 });
    },
  };
}
