import { ConflictError, NotFoundError, ServiceUnavailableError, ValidationError } from "@mp/core";
import { type Database, isConnectionError, recordAudit } from "@mp/db";
import type { KycProvider } from "./kyc-provider.ts";

/**
 * KYC by manual review (`KYC_PROVIDER=manual`), for an operator without a vendor contract: a
 * submission handed over for review waits in `kyc_manual_reviews` until an operator decides it with
 * `payments kyc approve|reject|request-review`. The decision is taken once (a trigger refuses any
 * later change) and audited in `operator_audit_log` in the same transaction.
 *
 * Like every provider it is asynchronous for the API: the review job polls `getReview`, and the CLI
 * nudges a check right after a decision so the customer's status follows within seconds.
 */

/** How soon the review job first looks: a person decides, so there is no point in looking sooner. */
const FIRST_CHECK_AFTER_MS = 5_000;

export type ManualDecision = "APPROVED" | "REJECTED" | "REQUIRES_REVIEW";

export interface ManualReview {
  reviewId: string;
  submissionId: string;
  customerType: "INDIVIDUAL" | "BUSINESS";
  tier: "TIER_1" | "TIER_2";
  submittedAt: Date;
  status: "PENDING" | ManualDecision;
  reasons: string[];
  decidedBy: string | null;
  decidedAt: Date | null;
}

/** The columns as a ManualReview's fields: the query's answer is the review, with no row type to map. */
const REVIEW_COLUMNS = `review_id AS "reviewId", submission_id AS "submissionId", customer_type AS "customerType", tier,
  submitted_at AS "submittedAt", status, reasons, decided_by AS "decidedBy", decided_at AS "decidedAt"`;

/** The database is the provider here: its outage is a provider outage (retryable), as a vendor's would be. */
async function asProvider<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (isConnectionError(error)) throw new ServiceUnavailableError("KYC review queue unavailable", { cause: error });
    throw error;
  }
}

export function createManualKycProvider(options: { db: Database }): KycProvider {
  const { db } = options;
  return {
    name: "manual",
    async createProfile(request) {
      // No outside profile exists: our customer id is the profile.
      return { profileId: `kycp_man_${request.customerId}` };
    },
    async submitReview(request) {
      const reviewId = `kycr_man_${request.submissionId}`;
      // Idempotent per submission: a repeated hand-over finds the row and returns the same review.
      await asProvider(() =>
        db.query(
          `INSERT INTO kyc_manual_reviews (review_id, submission_id, profile_id, customer_type, tier, submitted_at)
           VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (submission_id) DO NOTHING`,
          [reviewId, request.submissionId, request.profileId, request.customerType, request.tier, request.submittedAt],
        ),
      );
      return { reviewId, checkAfterMs: FIRST_CHECK_AFTER_MS };
    },
    async getReview(reviewId) {
      const result = await asProvider(() =>
        db.query<Pick<ManualReview, "status" | "reasons">>(
          "SELECT status, reasons FROM kyc_manual_reviews WHERE review_id = $1",
          [reviewId],
        ),
      );
      const row = result.rows[0];
      if (!row) throw new NotFoundError("KYC review");
      if (row.status === "PENDING" || row.status === "APPROVED") return { status: row.status };
      return { status: row.status, reasons: row.reasons };
    },
  };
}

/** The review queue, oldest first; `status` defaults to the undecided ones. */
export async function listManualReviews(
  db: Database,
  filter: { status?: ManualReview["status"] | "ALL" } = {},
): Promise<ManualReview[]> {
  const status = filter.status ?? "PENDING";
  const result = await db.query<ManualReview>(
    `SELECT ${REVIEW_COLUMNS} FROM kyc_manual_reviews
     WHERE $1::text = 'ALL' OR status = $1 ORDER BY submitted_at, review_id`,
    [status],
  );
  return result.rows;
}

export async function findManualReview(db: Database, submissionId: string): Promise<ManualReview> {
  const result = await db.query<ManualReview>(
    `SELECT ${REVIEW_COLUMNS} FROM kyc_manual_reviews WHERE submission_id = $1`,
    [submissionId],
  );
  const review = result.rows[0];
  if (!review) throw new NotFoundError("KYC review");
  return review;
}

/**
 * Records an operator's decision, once, with its audit line in the same transaction. A second
 * decision on the same review is a ConflictError naming the first one; a REJECTED or
 * REQUIRES_REVIEW decision needs at least one reason (the merchant sees them as rejection_reasons).
 */
export async function decideManualReview(
  db: Database,
  decision: { submissionId: string; status: ManualDecision; reasons: string[]; operator: string },
): Promise<ManualReview> {
  const reasons = decision.reasons.map((reason) => reason.trim()).filter((reason) => reason.length > 0);
  if (decision.status !== "APPROVED" && reasons.length === 0) {
    throw new ValidationError(`a ${decision.status} decision needs at least one --reason`, "reason");
  }
  if (decision.status === "APPROVED" && reasons.length > 0) {
    throw new ValidationError("an approval takes no reasons", "reason");
  }
  const operator = decision.operator.trim();
  if (operator.length === 0) throw new ValidationError("the deciding operator must be named", "operator");
  return db.tx(async (client) => {
    const current = await client.query<ManualReview>(
      `SELECT ${REVIEW_COLUMNS} FROM kyc_manual_reviews WHERE submission_id = $1 FOR UPDATE`,
      [decision.submissionId],
    );
    const row = current.rows[0];
    if (!row) throw new NotFoundError("KYC review");
    if (row.status !== "PENDING") {
      throw new ConflictError(
        `KYC review of submission ${decision.submissionId} was already decided: ${row.status} by ${row.decidedBy} at ${row.decidedAt?.toISOString()}`,
      );
    }
    const updated = await client.query<ManualReview>(
      `UPDATE kyc_manual_reviews SET status = $2, reasons = $3::jsonb, decided_by = $4, decided_at = now()
       WHERE submission_id = $1 RETURNING ${REVIEW_COLUMNS}`,
      [decision.submissionId, decision.status, JSON.stringify(reasons), operator],
    );
    await recordAudit(client, {
      actor: operator,
      action: `kyc.${decision.status.toLowerCase()}`,
      objectType: "verification_submission",
      objectId: decision.submissionId,
      details: { reasons },
    });
    return updated.rows[0] as ManualReview;
  });
}

/** A review as `payments kyc list --json` and the dashboard's review queue show it. */
export function manualReviewJson(review: ManualReview) {
  return {
    submission_id: review.submissionId,
    review_id: review.reviewId,
    customer_type: review.customerType,
    tier: review.tier,
    status: review.status,
    reasons: review.reasons,
    submitted_at: review.submittedAt.toISOString(),
    decided_by: review.decidedBy,
    decided_at: review.decidedAt?.toISOString() ?? null,
  };
}
