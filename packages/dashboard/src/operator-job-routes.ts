import type { Database } from "@mp/db";
import { type FailedJob, listFailedJobs, type QueueStats, readQueueStats } from "@mp/jobs";
import { Router } from "express";
import { userWith } from "./require-session.ts";

/** The job queues page's answer: each queue's counts by state and oldest waiting job, the failed jobs. */
export function jobsView(queues: QueueStats[], failed: FailedJob[]) {
  return {
    queues: queues.map((q) => ({ queue: q.queue, counts: q.counts, oldest_waiting_seconds: q.oldestWaitingSeconds })),
    failed: failed.map((f) => ({
      id: f.id,
      queue: f.queue,
      retry_count: f.retryCount,
      created_at: f.createdAt,
      failed_at: f.failedAt,
      error: f.error,
    })),
  };
}

/** The operator's job queues (pg-boss): counts by state, the oldest waiting job, the failed ones. */
export function operatorJobRoutes(db: Database): Router {
  const router = Router();
  router.get("/operator/jobs", async (_req, res) => {
    userWith(res, "operator");
    const [queues, failed] = [await readQueueStats(db), await listFailedJobs(db)];
    res.json(jobsView(queues, failed));
  });
  return router;
}
