import { z } from "zod";
import type { AppDeps } from "../deps.ts";
import { lockCustomerById, refreshCustomerVerification } from "./customer-verification.ts";
import { callProvider, nextCheckDelaySeconds, scheduleNextCheck } from "./provider-checks.ts";
import {
  loadSubmissionForReview,
  markSubmissionPending,
  recordSubmissionOutcome,
  type SubmissionForReview,
} from "./verification-store.ts";

/** Hands a new attempt to the KYC provider (SUBMITTED -> PENDING). */
export const SUBMIT_VERIFICATION_REVIEW_JOB = "verification.submit-review";
/** Asks the provider for the decision until there is one (PENDING -> APPROVED/REQUIRES_REVIEW/REJECTED). */
export const CHECK_VERIFICATION_REVIEW_JOB = "verification.check-review";

export type ReviewJobDeps = Pick<AppDeps, "db" | "jobs" | "kyc" | "encryption" | "logger">;

/** Job data: ids and a counter only, never any payload value. */
export const reviewJobData = z.object({ submissionId: z.uuid(), check: z.number().int().min(0) });
export type ReviewJobData = z.infer<typeof reviewJobData>;

const storedPayload = z.record(z.string(), z.unknown());

function reschedule(deps: ReviewJobDeps, queue: string, row: SubmissionForReview, status: string, check: number) {
  return scheduleNextCheck(deps, {
    table: "verification_submissions",
    id: row.id,
    status,
    expectedChecks: check,
    queue,
    data: (next) => ({ submissionId: row.id, check: next }),
    delaySeconds: nextCheckDelaySeconds(check + 1),
  });
}

/**
 * Sends the attempt to the provider. Safe to run again at any point: the provider call is keyed by
 * the submission id (a repeat returns the same review), and the status change plus the scheduling of
 * the first check happen once, guarded by `provider_checks`.
 */
export async function submitVerificationReview(deps: ReviewJobDeps, data: ReviewJobData): Promise<void> {
  const row = await loadSubmissionForReview(deps.db, data.submissionId);
  if (row?.status !== "SUBMITTED" || row.providerChecks !== data.check) return;
  // Opened only here, in memory, on its way to the provider; never logged.
  const payload = storedPayload.parse(deps.encryption.openJson(row.payload, row.id));
  const submitted = await callProvider(
    deps.logger,
    {
      fields: { submissionId: row.id },
      warning: "KYC provider unavailable; submission will be retried",
      retry: () => reschedule(deps, SUBMIT_VERIFICATION_REVIEW_JOB, row, "SUBMITTED", data.check),
    },
    async () => {
      const profileId =
        row.providerProfileId ??
        (await deps.kyc.createProfile({ customerId: row.customerId, type: row.customerType, email: row.customerEmail }))
          .profileId;
      const receipt = await deps.kyc.submitReview({
        submissionId: row.id,
        profileId,
        customerType: row.customerType,
        tier: row.tier,
        submittedAt: row.submittedAt,
        payload,
      });
      return { profileId, receipt };
    },
  );
  if (!submitted) return;
  const { profileId, receipt } = submitted.value;
  const applied = await deps.db.tx(async (client) => {
    if (!(await markSubmissionPending(client, row.id, data.check, receipt.reviewId))) return false;
    // A submission may overtake the customer's provisioning job; remember the profile either way.
    await client.query("UPDATE customers SET provider_profile_id = $2 WHERE id = $1 AND provider_profile_id IS NULL", [
      row.customerId,
      profileId,
    ]);
    await deps.jobs.send(
      CHECK_VERIFICATION_REVIEW_JOB,
      { submissionId: row.id, check: data.check + 1 },
      { client, startAfterSeconds: receipt.checkAfterMs / 1000 },
    );
    return true;
  });
  if (applied) deps.logger.info({ submissionId: row.id, tier: row.tier }, "verification submitted for review");
}

/**
 * Asks the provider for the decision. While it is pending, schedules the next check (backing off);
 * once decided, records it on the attempt and re-derives the customer's verification state in one
 * transaction, at most once.
 */
export async function checkVerificationReview(deps: ReviewJobDeps, data: ReviewJobData): Promise<void> {
  const row = await loadSubmissionForReview(deps.db, data.submissionId);
  if (row?.status !== "PENDING" || row.providerChecks !== data.check || !row.providerReviewId) return;
  const reviewId = row.providerReviewId;
  const checked = await callProvider(
    deps.logger,
    {
      fields: { submissionId: row.id },
      warning: "KYC provider unavailable; review check will be retried",
      retry: () => reschedule(deps, CHECK_VERIFICATION_REVIEW_JOB, row, "PENDING", data.check),
    },
    () => deps.kyc.getReview(reviewId),
  );
  if (!checked) return;
  const outcome = checked.value;
  if (outcome.status === "PENDING") {
    await reschedule(deps, CHECK_VERIFICATION_REVIEW_JOB, row, "PENDING", data.check);
    return;
  }
  const decided = {
    status: outcome.status,
    reasons: outcome.status === "APPROVED" ? [] : outcome.reasons,
  };
  const applied = await deps.db.tx(async (client) => {
    // Customer first, as the submission route does: one lock order, no deadlock.
    await lockCustomerById(client, row.customerId);
    if (!(await recordSubmissionOutcome(client, row.id, data.check, decided))) return false;
    await refreshCustomerVerification(client, row.customerId);
    return true;
  });
  if (applied) {
    deps.logger.info({ submissionId: row.id, tier: row.tier, status: decided.status }, "verification review decided");
  }
}
