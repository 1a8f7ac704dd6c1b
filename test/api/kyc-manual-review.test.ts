import { checkVerificationReviewNow, openSubmissionForOperator } from "@mp/api";
import {
  createManualKycProvider,
  decideManualReview,
  findManualReview,
  listManualReviews,
  type ManualDecision,
} from "@mp/providers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ApiHarness, eventually, startApiHarness, type TestMerchant } from "../support/api-harness.ts";
import { createCustomer, decided, individualTier1, stringValues, submit } from "./verification-fixtures.ts";

/** KYC_PROVIDER=manual: attempts wait for an operator; the customer follows the decision. */
describe("manual KYC review", () => {
  let api: ApiHarness;
  let m: TestMerchant;
  beforeAll(async () => {
    api = await startApiHarness({ workers: true, overrides: (db) => ({ kyc: createManualKycProvider({ db }) }) });
    m = await api.merchant();
  });
  afterAll(() => api.stop());

  async function pendingAttempt(lastName = "Hopper") {
    const customerId = await createCustomer(api, m);
    const res = await submit(api, m, customerId, individualTier1({ last_name: lastName }));
    expect(res.status).toBe(202);
    const submissionId: string = res.body.data.id;
    // Handed over: the attempt is PENDING and waits in the queue, undecided, for as long as it takes.
    await eventually(async () => {
      const queue = await listManualReviews(api.db);
      return queue.some((review) => review.submissionId === submissionId) ? true : undefined;
    });
    return { customerId, submissionId };
  }

  /** An operator's decision with its reasons, then the review check `payments kyc` runs right after it. */
  async function decideWithReasons(submissionId: string, status: ManualDecision, reasons: string[], operator: string) {
    await decideManualReview(api.db, { submissionId, status, reasons, operator });
    await checkVerificationReviewNow(api.deps, submissionId);
  }

  async function customer(customerId: string) {
    return (await api.call(m.apiKey, `/v1/customers/${customerId}`)).body.data;
  }

  it("waits for an operator, then approves once: the customer follows and the decision is audited", async () => {
    const { customerId, submissionId } = await pendingAttempt();
    await new Promise((r) => setTimeout(r, 300));
    const attempt = await api.call(m.apiKey, `/v1/customers/${customerId}/verification-submissions/${submissionId}`);
    expect(attempt.body.data.status).toBe("PENDING");
    expect((await customer(customerId)).status).toBe("UNDER_REVIEW");

    const review = await decideManualReview(api.db, {
      submissionId,
      status: "APPROVED",
      reasons: [],
      operator: "alice",
    });
    expect(review).toMatchObject({ status: "APPROVED", decidedBy: "alice" });
    expect(await checkVerificationReviewNow(api.deps, submissionId)).toBe(true);
    expect((await decided(api, m, customerId, submissionId)).status).toBe("APPROVED");
    expect(await customer(customerId)).toMatchObject({ status: "APPROVED", tier_1_complete: true });

    // Decided once: a second decision is refused and changes nothing.
    await expect(
      decideManualReview(api.db, { submissionId, status: "REJECTED", reasons: ["late"], operator: "bob" }),
    ).rejects.toMatchObject({ code: "conflict" });
    expect((await findManualReview(api.db, submissionId)).status).toBe("APPROVED");
    const audit = await api.db.query(
      "SELECT actor, action, object_id, details FROM operator_audit_log WHERE object_id = $1",
      [submissionId],
    );
    expect(audit.rows).toEqual([
      { actor: "alice", action: "kyc.approved", object_id: submissionId, details: { reasons: [] } },
    ]);
  });

  it("rejects with reasons the merchant sees; reasons are required and the database refuses any later change", async () => {
    const { customerId, submissionId } = await pendingAttempt();
    await expect(
      decideManualReview(api.db, { submissionId, status: "REJECTED", reasons: ["  "], operator: "alice" }),
    ).rejects.toMatchObject({ code: "validation_error" });
    expect((await findManualReview(api.db, submissionId)).status).toBe("PENDING");

    await decideWithReasons(submissionId, "REJECTED", ["Document does not match the name"], "alice");
    const final = await decided(api, m, customerId, submissionId);
    expect(final).toMatchObject({ status: "REJECTED", rejection_reasons: ["Document does not match the name"] });
    expect(await customer(customerId)).toMatchObject({
      status: "REJECTED",
      rejection_reasons: ["Document does not match the name"],
    });
    await expect(
      api.db.query("UPDATE kyc_manual_reviews SET status = 'APPROVED', reasons = '[]' WHERE submission_id = $1", [
        submissionId,
      ]),
    ).rejects.toMatchObject({ code: "23514" });
    await expect(api.db.query("DELETE FROM operator_audit_log")).rejects.toMatchObject({ code: "23514" });
  });

  it("asks for a corrected attempt, which is accepted as a new attempt and reviewed again", async () => {
    const { customerId, submissionId } = await pendingAttempt();
    await decideWithReasons(submissionId, "REQUIRES_REVIEW", ["Address could not be verified"], "carol");
    expect((await decided(api, m, customerId, submissionId)).status).toBe("REQUIRES_REVIEW");
    const second = await submit(api, m, customerId, individualTier1({ last_name: "Hopper" }));
    expect(second.status).toBe(202);
    await eventually(async () =>
      (await listManualReviews(api.db)).some((r) => r.submissionId === second.body.data.id) ? true : undefined,
    );
  });

  it("keeps the payload out of the queue: only the operator's show opens it", async () => {
    const payload = individualTier1({ last_name: "Quietly-Secret-Name" });
    const customerId = await createCustomer(api, m);
    const res = await submit(api, m, customerId, payload);
    const submissionId: string = res.body.data.id;
    await eventually(async () =>
      (await listManualReviews(api.db)).some((r) => r.submissionId === submissionId) ? true : undefined,
    );
    const rows = await api.db.query("SELECT * FROM kyc_manual_reviews WHERE submission_id = $1", [submissionId]);
    const stored = JSON.stringify(rows.rows);
    // Every personal value (the tier is not one: the queue shows it).
    const { tier: _tier, ...personal } = payload;
    for (const value of stringValues(personal).filter((v) => v.length > 3)) expect(stored).not.toContain(value);
    const shown = await openSubmissionForOperator(api.deps, submissionId);
    expect(shown.payload).toEqual(payload);
  });

  it("an unknown submission is not found; an approval takes no reasons", async () => {
    await expect(
      decideManualReview(api.db, {
        submissionId: "00000000-0000-4000-8000-000000000000",
        status: "APPROVED",
        reasons: [],
        operator: "alice",
      }),
    ).rejects.toMatchObject({ code: "not_found" });
    const { submissionId } = await pendingAttempt();
    await expect(
      decideManualReview(api.db, { submissionId, status: "APPROVED", reasons: ["why"], operator: "alice" }),
    ).rejects.toMatchObject({ code: "validation_error" });
  });
});
