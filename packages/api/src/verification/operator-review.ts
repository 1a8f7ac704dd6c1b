import { NotFoundError } from "@mp/core";
import type { Queryable } from "@mp/db";
import { decideManualReview, type ManualDecision, type ManualReview } from "@mp/providers";
import type { AppDeps } from "../deps.ts";
import { CHECK_VERIFICATION_REVIEW_JOB } from "./verification-review-jobs.ts";
import { loadSubmissionForReview } from "./verification-store.ts";

/**
 * What an operator reviewing an attempt sees (`payments kyc show`): the safe state and the payload,
 * opened in memory for this one display. Never logged, never sent anywhere else. `db` may be the
 * transaction that audits the opening.
 */
export async function openSubmissionForOperator(
  deps: Pick<AppDeps, "encryption"> & { db: Queryable },
  submissionId: string,
): Promise<{
  submissionId: string;
  customerId: string;
  customerType: "INDIVIDUAL" | "BUSINESS";
  tier: string;
  status: string;
  submittedAt: Date;
  payload: unknown;
}> {
  const row = await loadSubmissionForReview(deps.db, submissionId);
  if (!row) throw new NotFoundError("Verification submission");
  return {
    submissionId: row.id,
    customerId: row.customerId,
    customerType: row.customerType,
    tier: row.tier,
    status: row.status,
    submittedAt: row.submittedAt,
    payload: deps.encryption.openJson(row.payload, row.id),
  };
}

/**
 * Asks for the decision now instead of at the next scheduled check. The check job carries the
 * attempt's current `provider_checks`: whichever of it and the scheduled job runs first applies
 * the decision and moves the counter on, and the other then does nothing.
 */
export async function checkVerificationReviewNow(
  deps: Pick<AppDeps, "db" | "jobs">,
  submissionId: string,
): Promise<boolean> {
  const row = await loadSubmissionForReview(deps.db, submissionId);
  if (row?.status !== "PENDING") return false;
  await deps.jobs.send(CHECK_VERIFICATION_REVIEW_JOB, { submissionId, check: row.providerChecks });
  return true;
}

/**
 * An operator's decision on a manual KYC review (`payments kyc approve|reject|request-review` and
 * the dashboard's review queue): recorded once with its audit line, then the customer's status
 * follows at once rather than at the next scheduled check. Should the check's enqueue fail, the
 * scheduled check still finds the decision: it is already committed.
 */
export async function decideVerificationReview(
  deps: Pick<AppDeps, "db" | "jobs">,
  decision: { submissionId: string; status: ManualDecision; reasons: string[]; operator: string },
): Promise<ManualReview> {
  const decided = await decideManualReview(deps.db, decision);
  await checkVerificationReviewNow(deps, decision.submissionId);
  return decided;
}
