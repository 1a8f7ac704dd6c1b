import { type AppDeps, decideVerificationReview, openSubmissionForOperator, parseOrThrow } from "@mp/api";
import { ServiceUnavailableError } from "@mp/core";
import { recordAudit } from "@mp/db";
import { findManualReview, listManualReviews, manualReviewJson } from "@mp/providers";
import { Router } from "express";
import { z } from "zod";
import { dashboardActor } from "./audit-log.ts";
import { type ReviewContext, reviewContexts } from "./kyc-review-context.ts";
import { uuidParam } from "./merchant-param.ts";
import { userWith } from "./require-session.ts";

const ListQuery = z.object({
  status: z.enum(["PENDING", "APPROVED", "REJECTED", "REQUIRES_REVIEW", "ALL"]).default("PENDING"),
});
const Decision = z.discriminatedUnion("decision", [
  z.strictObject({ decision: z.literal("approve") }),
  z.strictObject({
    decision: z.enum(["reject", "request_review"]),
    reasons: z.array(z.string().trim().min(1).max(500)).min(1).max(20),
  }),
]);
/** A review in the queue with whose it is (merchant, customer). */
export function kycReviewView(review: Parameters<typeof manualReviewJson>[0], context: ReviewContext | undefined) {
  return { ...manualReviewJson(review), merchant: context?.merchant ?? null, customer: context?.customer ?? null };
}

/** The submitted data as the reviewer sees it: opened for this one answer, never stored or logged. */
export function submissionView(opened: Awaited<ReturnType<typeof openSubmissionForOperator>>) {
  return {
    submission_id: opened.submissionId,
    customer_id: opened.customerId,
    customer_type: opened.customerType,
    tier: opened.tier,
    status: opened.status,
    submitted_at: opened.submittedAt.toISOString(),
    data: opened.payload as Record<string, unknown>,
  };
}

const STATUS = { approve: "APPROVED", reject: "REJECTED", request_review: "REQUIRES_REVIEW" } as const;

/**
 * The manual KYC review queue (KYC_PROVIDER=manual): the same list and the same decision as
 * `payments kyc list|approve|reject|request-review` (decideVerificationReview: recorded once and
 * audited under `dashboard:<email>`, then the customer's status check runs at once).
 */
export function operatorKycRoutes(deps: Pick<AppDeps, "db"> & Partial<Pick<AppDeps, "jobs" | "encryption">>): Router {
  const router = Router();
  router.get("/operator/kyc-reviews", async (req, res) => {
    userWith(res, "operator");
    const { status } = parseOrThrow(ListQuery, req.query, "query");
    const reviews = await listManualReviews(deps.db, { status });
    const contexts = await reviewContexts(
      deps.db,
      reviews.map((r) => r.submissionId),
    );
    res.json({ items: reviews.map((r) => kycReviewView(r, contexts.get(r.submissionId))) });
  });
  // What the customer submitted, decrypted for this reviewer only; each view is audited (who, when).
  router.get("/operator/kyc-reviews/:submissionId/submission", async (req, res) => {
    const user = userWith(res, "operator");
    const submissionId = uuidParam(req, "submissionId", "KYC review");
    const { encryption } = deps;
    if (!encryption) throw new ServiceUnavailableError("no encryption keyring in this process");
    await findManualReview(deps.db, submissionId);
    const opened = await deps.db.tx(async (sql) => {
      await recordAudit(sql, {
        actor: dashboardActor(user.email),
        action: "kyc_submission.viewed",
        objectType: "verification_submission",
        objectId: submissionId,
      });
      // In the audit's transaction: on the pool it waited for a second connection while this one
      // held the first, for ever on the embedded database (one connection).
      return openSubmissionForOperator({ db: sql, encryption }, submissionId);
    });
    res.json(submissionView(opened));
  });
  router.post("/operator/kyc-reviews/:submissionId/decision", async (req, res) => {
    const user = userWith(res, "operator");
    const submissionId = uuidParam(req, "submissionId", "KYC review");
    const body = parseOrThrow(Decision, req.body, "body");
    if (!deps.jobs) throw new ServiceUnavailableError("no job queue in this process");
    const review = await decideVerificationReview(
      { db: deps.db, jobs: deps.jobs },
      {
        submissionId,
        status: STATUS[body.decision],
        reasons: body.decision === "approve" ? [] : body.reasons,
        operator: dashboardActor(user.email),
      },
    );
    res.json(manualReviewJson(review));
  });
  return router;
}
