export { createJobQueue, type JobQueue, type JobQueueOptions } from "./job-queue.ts";
