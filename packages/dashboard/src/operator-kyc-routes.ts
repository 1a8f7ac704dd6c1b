import { type AppDeps, decideVerificationReview, parseOrThrow } from "@mp/api";
import { ServiceUnavailableError } from "@mp/core";
import { listManualReviews, manualReviewJson } from "@mp/providers";
import { Router } from "express";
import { z } from "zod";
import { dashboardActor } from "./audit-log.ts";
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
const STATUS = { approve: "APPROVED", reject: "REJECTED", request_review: "REQUIRES_REVIEW" } as const;

/**
 * The manual KYC review queue (KYC_PROVIDER=manual): the same list and the same decision as
 * `payments kyc list|approve|reject|request-review` (decideVerificationReview: recorded once and
 * audited under `dashboard:<email>`, then the customer's status check runs at once).
 */
export function operatorKycRoutes(deps: Pick<AppDeps, "db"> & Partial<Pick<AppDeps, "jobs">>): Router {
  const router = Router();
  router.get("/operator/kyc-reviews", async (req, res) => {
    userWith(res, "operator");
    const { status } = parseOrThrow(ListQuery, req.query, "query");
    res.json({ items: (await listManualReviews(deps.db, { status })).map(manualReviewJson) });
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
