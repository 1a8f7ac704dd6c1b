export {
  createJobQueue,
  DEFAULT_JOB_HEARTBEAT_SECONDS,
  type JobQueue,
  type JobQueueOptions,
  jobRedeliveryBoundSeconds,
} from "./job-queue.ts";
export { type FailedJob, listFailedJobs, type QueueStats, readQueueStats } from "./queue-stats.ts";
