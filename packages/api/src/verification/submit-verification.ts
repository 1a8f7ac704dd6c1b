import { randomUUID } from "node:crypto";
import { ConflictError, NotFoundError } from "@mp/core";
import { type Queryable, SqlState, sqlState } from "@mp/db";
import type { AppDeps } from "../deps.ts";
import { parseOrThrow } from "../http/validate.ts";
import {
  latestAttempts,
  lockCustomer,
  refreshCustomerVerification,
  UNRESOLVED_STATUSES,
} from "./customer-verification.ts";
import { payloadSchemaFor, type VerificationTier } from "./verification-payload-schemas.ts";
import { SUBMIT_VERIFICATION_REVIEW_JOB } from "./verification-review-jobs.ts";
import type { VerificationSubmissionResource } from "./verification-schemas.ts";
import { insertSubmission } from "./verification-store.ts";

/**
 * Accepts a verification attempt (spec 4.3 and part 3) inside the request's transaction:
 * 1. the customer must be this merchant's (404), locked so concurrent attempts take turns;
 * 2. the payload must match the tier and the customer's type (400 naming the field);
 * 3. the latest attempt of the tier decides: unresolved (DRAFT/SUBMITTED/PENDING) -> 409, APPROVED
 *    -> 409, REJECTED -> 409 (final), REQUIRES_REVIEW or none -> accepted as a new attempt;
 *    TIER_2 also needs an APPROVED TIER_1 (409 otherwise);
 * 4. the payload is sealed (AES-256-GCM, the new attempt's id as associated data), the attempt stored
 *    as SUBMITTED, the customer marked UNDER_REVIEW, and the review job enqueued in the same
 *    transaction, so it exists exactly when the attempt does.
 */
export async function submitVerification(
  sql: Queryable,
  deps: Pick<AppDeps, "encryption" | "jobs">,
  input: {
    merchantId: string;
    customerId: string;
    tier: VerificationTier;
    body: unknown;
    idempotencyKey?: string | undefined;
  },
): Promise<VerificationSubmissionResource> {
  const customer = await lockCustomer(sql, input.merchantId, input.customerId);
  if (!customer) throw new NotFoundError("Customer");
  const payload = parseOrThrow(payloadSchemaFor(customer.type, input.tier), input.body, "body");

  const latest = new Map((await latestAttempts(sql, customer.id)).map((a) => [a.tier, a]));
  const previous = latest.get(input.tier);
  if (previous && UNRESOLVED_STATUSES.has(previous.status)) {
    throw new ConflictError(
      `The latest ${input.tier} attempt is ${previous.status}; wait for its outcome before submitting another`,
    );
  }
  if (previous?.status === "APPROVED") throw new ConflictError(`${input.tier} verification is already approved`);
  if (previous?.status === "REJECTED") {
    throw new ConflictError(`${input.tier} verification was rejected; a rejected verification is final`);
  }
  if (input.tier === "TIER_2" && latest.get("TIER_1")?.status !== "APPROVED") {
    throw new ConflictError("TIER_2 verification requires an approved TIER_1 verification first");
  }

  const id = randomUUID();
  let submission: VerificationSubmissionResource;
  try {
    submission = await insertSubmission(
      sql,
      {
        id,
        merchantId: input.merchantId,
        customerId: customer.id,
        customerType: customer.type,
        tier: input.tier,
        attempt: (previous?.attempt ?? 0) + 1,
        payload: deps.encryption.sealJson(payload, id),
      },
      input.idempotencyKey,
    );
  } catch (error) {
    // The row lock makes this unreachable in practice; the unique indexes are the last word.
    if (sqlState(error) === SqlState.uniqueViolation) {
      throw new ConflictError(`Another ${input.tier} attempt was accepted at the same time`);
    }
    throw error;
  }
  await refreshCustomerVerification(sql, customer.id, input.idempotencyKey);
  await deps.jobs.send(SUBMIT_VERIFICATION_REVIEW_JOB, { submissionId: id, check: 0 }, { client: sql });
  return submission;
}
