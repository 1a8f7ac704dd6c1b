import type { JobQueue } from "@mp/jobs";
import type { ZodType } from "zod";
import type { AppDeps } from "../deps.ts";
import { faucetJobData, SANDBOX_FAUCET_JOB, sendQueuedFaucetTransfer } from "../sandbox/sandbox-faucet-outbox.ts";
import {
  activationJobData,
  CHECK_VIRTUAL_ACCOUNT_JOB,
  checkVirtualAccountActivation,
} from "../virtual-accounts/virtual-account-activation-job.ts";
import {
  CHECK_VERIFICATION_REVIEW_JOB,
  checkVerificationReview,
  reviewJobData,
  SUBMIT_VERIFICATION_REVIEW_JOB,
  submitVerificationReview,
} from "./verification-review-jobs.ts";

/**
 * The queues the KYC and banking jobs (and the sandbox faucet's outbox) use: create them at start
 * (createJobQueue `queues`).
 */
export const KYC_AND_BANKING_QUEUES: readonly string[] = [
  SUBMIT_VERIFICATION_REVIEW_JOB,
  CHECK_VERIFICATION_REVIEW_JOB,
  CHECK_VIRTUAL_ACCOUNT_JOB,
  SANDBOX_FAUCET_JOB,
];

export type KycAndBankingWorkerDeps = Pick<
  AppDeps,
  "db" | "jobs" | "logger" | "kyc" | "banking" | "encryption" | "faucets"
>;

/**
 * Registers the handlers of the KYC review and bank account activation jobs, and the sandbox faucet's
 * sends, on the worker. Job data
 * is validated: a malformed job is logged and dropped (retrying it could never succeed).
 */
export async function registerKycAndBankingWorkers(jobs: JobQueue, deps: KycAndBankingWorkerDeps): Promise<void> {
  const worker =
    <T>(queue: string, schema: ZodType<T>, run: (data: T) => Promise<void>) =>
    (): Promise<void> =>
      jobs.work(queue, async (data: object) => {
        const parsed = schema.safeParse(data);
        if (!parsed.success) {
          deps.logger.error({ queue }, "dropping a job with malformed data");
          return;
        }
        await run(parsed.data);
      });
  // One after the other, as before: registration order is the queues' order.
  for (const register of [
    worker(SUBMIT_VERIFICATION_REVIEW_JOB, reviewJobData, (data) => submitVerificationReview(deps, data)),
    worker(CHECK_VERIFICATION_REVIEW_JOB, reviewJobData, (data) => checkVerificationReview(deps, data)),
    worker(CHECK_VIRTUAL_ACCOUNT_JOB, activationJobData, (data) => checkVirtualAccountActivation(deps, data)),
    worker(SANDBOX_FAUCET_JOB, faucetJobData, (data) => sendQueuedFaucetTransfer(deps, data)),
  ]) {
    await register();
  }
}
