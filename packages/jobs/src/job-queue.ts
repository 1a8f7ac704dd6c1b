import type { Logger } from "@mp/core";
import type { Database, Queryable } from "@mp/db";
import { PgBoss } from "pg-boss";

/**
 * Background jobs on PostgreSQL (pg-boss). Jobs are enqueued inside the caller's transaction, so a
 * job exists exactly when the write that asked for it committed; workers retry failures with
 * backoff and jobs survive restarts. Handlers must be idempotent: a job can run again after a crash
 * between its effect and its completion, and must then change nothing.
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
}

export async function createJobQueue(options: JobQueueOptions): Promise<JobQueue> {
  const boss = new PgBoss({
    connectionString: options.db.connectionString,
    max: 4,
    schema: "pgboss",
  });
  boss.on("error", (error: Error) => options.logger.warn({ err: error.message }, "job queue error"));
  await boss.start();
  for (const name of options.queues) {
    await boss.createQueue(name, { retryLimit: 10, retryDelay: 1, retryBackoff: true, retryDelayMax: 60 });
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
