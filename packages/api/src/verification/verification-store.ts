import { insertReturning, type Queryable } from "@mp/db";
import type { SealedValue } from "@mp/encryption";
import { appendResourceEvent } from "@mp/events";
import { defineListQuery } from "../shared/list-page.ts";
import { type RowOf, resourceTable } from "../shared/resource-row.ts";
import type { VerificationTier } from "./verification-payload-schemas.ts";
import type { VerificationStatus, VerificationSubmissionResource } from "./verification-schemas.ts";

type SubmissionRow = RowOf<
  VerificationSubmissionResource,
  "submitted_at" | "completed_at" | "created_at" | "updated_at"
>;

// The safe columns only: the ciphertext is never selected for an answer.
const SUBMISSIONS = resourceTable<SubmissionRow>({
  from: "verification_submissions",
  columns: `id, customer_id, customer_type, tier, status, rejection_reasons, submitted_at, completed_at,
  created_at, updated_at`,
});
const COLUMNS = SUBMISSIONS.columns;
const toResource = SUBMISSIONS.toResource;

export async function insertSubmission(
  sql: Queryable,
  input: {
    id: string;
    merchantId: string;
    customerId: string;
    customerType: "INDIVIDUAL" | "BUSINESS";
    tier: VerificationTier;
    attempt: number;
    payload: SealedValue;
  },
  idempotencyKey?: string,
): Promise<VerificationSubmissionResource> {
  const row = await insertReturning<SubmissionRow>(
    sql,
    `INSERT INTO verification_submissions
       (id, merchant_id, customer_id, customer_type, tier, attempt, status, payload_ciphertext, payload_key_id, submitted_at)
     VALUES ($1, $2, $3, $4, $5, $6, 'SUBMITTED', $7, $8, now())
     RETURNING ${COLUMNS}`,
    [
      input.id,
      input.merchantId,
      input.customerId,
      input.customerType,
      input.tier,
      input.attempt,
      input.payload.ciphertext,
      input.payload.keyId,
    ],
  );
  const submission = toResource(row);
  await appendResourceEvent(sql, input.merchantId, "verification_submission.created", submission, idempotencyKey);
  return submission;
}

/** One attempt of this merchant's customer, or undefined (another merchant's looks exactly like a missing one). */
export async function findSubmission(
  sql: Queryable,
  merchantId: string,
  customerId: string,
  submissionId: string,
): Promise<VerificationSubmissionResource | undefined> {
  const result = await sql.query<SubmissionRow>(
    `SELECT ${COLUMNS} FROM verification_submissions WHERE merchant_id = $1 AND customer_id = $2 AND id = $3`,
    [merchantId, customerId, submissionId],
  );
  const row = result.rows[0];
  return row ? toResource(row) : undefined;
}

export interface SubmissionFilters {
  tier?: string | undefined;
  status?: string | undefined;
}

/** A customer's attempts, newest first: its route checked the customer is the merchant's. */
export const listSubmissions = defineListQuery(SUBMISSIONS, "customer_id", (where, filters: SubmissionFilters) =>
  where.equal(filters, "tier", "status"),
);

/** What the review jobs need of an attempt (including the sealed payload, opened only in memory). */
export interface SubmissionForReview {
  id: string;
  customerId: string;
  customerType: "INDIVIDUAL" | "BUSINESS";
  customerEmail: string | null;
  providerProfileId: string | null;
  tier: VerificationTier;
  status: VerificationStatus;
  providerReviewId: string | null;
  providerChecks: number;
  submittedAt: Date;
  payload: SealedValue;
}

export async function loadSubmissionForReview(
  sql: Queryable,
  submissionId: string,
): Promise<SubmissionForReview | undefined> {
  const result = await sql.query<{
    id: string;
    customer_id: string;
    customer_type: "INDIVIDUAL" | "BUSINESS";
    email: string | null;
    provider_profile_id: string | null;
    tier: VerificationTier;
    status: VerificationStatus;
    provider_review_id: string | null;
    provider_checks: number;
    submitted_at: Date | null;
    created_at: Date;
    payload_ciphertext: Buffer;
    payload_key_id: string;
  }>(
    `SELECT s.id, s.customer_id, s.customer_type, c.email, c.provider_profile_id, s.tier, s.status,
       s.provider_review_id, s.provider_checks, s.submitted_at, s.created_at, s.payload_ciphertext, s.payload_key_id
     FROM verification_submissions s JOIN customers c ON c.id = s.customer_id
     WHERE s.id = $1`,
    [submissionId],
  );
  const row = result.rows[0];
  if (!row) return undefined;
  return {
    id: row.id,
    customerId: row.customer_id,
    customerType: row.customer_type,
    customerEmail: row.email,
    providerProfileId: row.provider_profile_id,
    tier: row.tier,
    status: row.status,
    providerReviewId: row.provider_review_id,
    providerChecks: row.provider_checks,
    submittedAt: row.submitted_at ?? row.created_at,
    payload: { keyId: row.payload_key_id, ciphertext: row.payload_ciphertext },
  };
}

/** The sealed payload of the customer's approved attempt of `tier`, if any. */
export async function approvedPayload(
  sql: Queryable,
  customerId: string,
  tier: VerificationTier,
): Promise<{ submissionId: string; payload: SealedValue } | undefined> {
  const result = await sql.query<{ id: string; payload_ciphertext: Buffer; payload_key_id: string }>(
    `SELECT id, payload_ciphertext, payload_key_id FROM verification_submissions
     WHERE customer_id = $1 AND tier = $2 AND status = 'APPROVED'`,
    [customerId, tier],
  );
  const row = result.rows[0];
  return row
    ? { submissionId: row.id, payload: { keyId: row.payload_key_id, ciphertext: row.payload_ciphertext } }
    : undefined;
}

/**
 * The customer-visible effect of handing the attempt to the provider, applied once: the status moves
 * SUBMITTED -> PENDING only if no other run of the job got there first (`provider_checks`), with its
 * `verification_submission.status_changed` event (so `sql` is a transaction).
 */
export async function markSubmissionPending(
  sql: Queryable,
  submissionId: string,
  expectedChecks: number,
  reviewId: string,
): Promise<boolean> {
  const result = await sql.query<SubmissionRow & { merchant_id: string }>(
    `UPDATE verification_submissions
     SET status = 'PENDING', provider_review_id = $3, provider_checks = provider_checks + 1, updated_at = now()
     WHERE id = $1 AND status = 'SUBMITTED' AND provider_checks = $2
     RETURNING merchant_id, ${COLUMNS}`,
    [submissionId, expectedChecks, reviewId],
  );
  return statusChanged(sql, result.rows[0]);
}

/** After a guarded status update: its event when the update applied; whether it did. */
async function statusChanged(sql: Queryable, row: (SubmissionRow & { merchant_id: string }) | undefined) {
  if (!row) return false;
  await appendResourceEvent(sql, row.merchant_id, "verification_submission.status_changed", toResource(row));
  return true;
}

/** Records the provider's decision once (PENDING -> decided); false when already applied. */
export async function recordSubmissionOutcome(
  sql: Queryable,
  submissionId: string,
  expectedChecks: number,
  outcome: { status: "APPROVED" | "REQUIRES_REVIEW" | "REJECTED"; reasons: string[] },
): Promise<boolean> {
  const result = await sql.query<SubmissionRow & { merchant_id: string }>(
    `UPDATE verification_submissions
     SET status = $3, rejection_reasons = $4::jsonb, completed_at = now(), provider_checks = provider_checks + 1,
       updated_at = now()
     WHERE id = $1 AND status = 'PENDING' AND provider_checks = $2
     RETURNING merchant_id, ${COLUMNS}`,
    [submissionId, expectedChecks, outcome.status, JSON.stringify(outcome.reasons)],
  );
  return statusChanged(sql, result.rows[0]);
}
