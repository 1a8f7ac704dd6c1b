import { ServiceUnavailableError } from "@mp/core";
import { createSandboxKycProvider, type KycProvider } from "@mp/providers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  CHECK_VERIFICATION_REVIEW_JOB,
  checkVerificationReview,
  SUBMIT_VERIFICATION_REVIEW_JOB,
  submitVerificationReview,
} from "../../packages/api/src/verification/verification-review-jobs.ts";
import { type ApiHarness, eventually, startApiHarness, type TestMerchant } from "../support/api-harness.ts";
import { createCustomer, decided, individualTier1, submit } from "./verification-fixtures.ts";

async function jobsFor(api: ApiHarness, name: string, submissionId: string) {
  const result = await api.db.query<{ state: string; retry_count: number; data: { check: number } }>(
    "SELECT state, retry_count, data FROM pgboss.job WHERE name = $1 AND data->>'submissionId' = $2 ORDER BY created_on",
    [name, submissionId],
  );
  return result.rows;
}

async function submissionRow(api: ApiHarness, id: string) {
  const result = await api.db.query<{ status: string; provider_review_id: string | null; provider_checks: number }>(
    "SELECT status, provider_review_id, provider_checks FROM verification_submissions WHERE id = $1",
    [id],
  );
  const row = result.rows[0];
  if (!row) throw new Error("no submission");
  return row;
}

describe("verification review jobs, driven by hand (no workers)", () => {
  let api: ApiHarness;
  let m: TestMerchant;
  // The sandbox's clock, moved by the test: reviews take 60 s of it.
  let skewMs = 0;
  beforeAll(async () => {
    const kyc = createSandboxKycProvider({ reviewDelayMs: 60_000, now: () => new Date(Date.now() + skewMs) });
    api = await startApiHarness({ overrides: { kyc } });
    m = await api.merchant();
  });
  afterAll(() => api.stop());

  it("keeps an attempt SUBMITTED until the worker runs, enqueued with it, and refuses another meanwhile", async () => {
    const customerId = await createCustomer(api, m);
    const first = await submit(api, m, customerId, individualTier1());
    expect(first.status).toBe(202);
    const id = first.body.data.id;
    expect(await jobsFor(api, SUBMIT_VERIFICATION_REVIEW_JOB, id)).toMatchObject([
      { state: "created", data: { check: 0 } },
    ]);
    const second = await submit(api, m, customerId, individualTier1());
    expect(second.status).toBe(409);
    expect(second.body.message).toContain("SUBMITTED");
  });

  it("submits once, checks with backoff while PENDING, decides once; stale or repeated runs change nothing", async () => {
    const customerId = await createCustomer(api, m);
    const res = await submit(api, m, customerId, individualTier1({ last_name: "Review" }));
    const id = res.body.data.id;

    await submitVerificationReview(api.deps, { submissionId: id, check: 0 });
    const pending = await submissionRow(api, id);
    expect(pending).toMatchObject({ status: "PENDING", provider_checks: 1 });
    expect(pending.provider_review_id).toMatch(/^kycr_sbx_/);
    // A second run (a crash before the job was marked done) is a no-op: one check job only.
    await submitVerificationReview(api.deps, { submissionId: id, check: 0 });
    expect(await submissionRow(api, id)).toEqual(pending);
    expect(await jobsFor(api, CHECK_VERIFICATION_REVIEW_JOB, id)).toHaveLength(1);
    expect((await submit(api, m, customerId, individualTier1())).status).toBe(409);
    expect((await api.call(m.apiKey, `/v1/customers/${customerId}`)).body.data.status).toBe("UNDER_REVIEW");

    // Still under review at the provider: the next check is scheduled, once.
    await checkVerificationReview(api.deps, { submissionId: id, check: 1 });
    await checkVerificationReview(api.deps, { submissionId: id, check: 1 });
    expect(await submissionRow(api, id)).toMatchObject({ status: "PENDING", provider_checks: 2 });
    const checks = await jobsFor(api, CHECK_VERIFICATION_REVIEW_JOB, id);
    expect(checks.map((j) => j.data.check)).toEqual([1, 2]);

    skewMs = 60_000;
    await checkVerificationReview(api.deps, { submissionId: id, check: 1 }); // stale: ignored
    expect((await submissionRow(api, id)).status).toBe("PENDING");
    await checkVerificationReview(api.deps, { submissionId: id, check: 2 });
    await checkVerificationReview(api.deps, { submissionId: id, check: 2 });
    expect(await submissionRow(api, id)).toMatchObject({ status: "REQUIRES_REVIEW", provider_checks: 3 });
    expect(await jobsFor(api, CHECK_VERIFICATION_REVIEW_JOB, id)).toHaveLength(2);
    const customer = (await api.call(m.apiKey, `/v1/customers/${customerId}`)).body.data;
    expect(customer).toMatchObject({ status: "REQUIRES_REVIEW", tier_1_complete: false });
    expect(customer.rejection_reasons).toHaveLength(1);
    skewMs = 0;
  });

  it("reschedules instead of failing while the provider is down", async () => {
    const customerId = await createCustomer(api, m);
    const id = (await submit(api, m, customerId, individualTier1())).body.data.id;
    const real = api.deps.kyc;
    api.deps.kyc = {
      ...real,
      submitReview: async () => {
        throw new ServiceUnavailableError("KYC provider down");
      },
    };
    try {
      await submitVerificationReview(api.deps, { submissionId: id, check: 0 });
    } finally {
      api.deps.kyc = real;
    }
    expect(await submissionRow(api, id)).toMatchObject({ status: "SUBMITTED", provider_checks: 1 });
    const retries = await jobsFor(api, SUBMIT_VERIFICATION_REVIEW_JOB, id);
    expect(retries.map((j) => j.data.check)).toEqual([0, 1]);
    await submitVerificationReview(api.deps, { submissionId: id, check: 1 });
    expect(await submissionRow(api, id)).toMatchObject({ status: "PENDING", provider_checks: 2 });
  });

  it("keeps attempts immutable in the database too", async () => {
    const customerId = await createCustomer(api, m);
    const id = (await submit(api, m, customerId, individualTier1())).body.data.id;
    const attempts = [
      "UPDATE verification_submissions SET tier = 'TIER_2' WHERE id = $1",
      "UPDATE verification_submissions SET payload_ciphertext = '\\x00'::bytea WHERE id = $1",
      "UPDATE verification_submissions SET status = 'DRAFT' WHERE id = $1",
    ];
    for (const sql of attempts) await expect(api.db.query(sql, [id]), sql).rejects.toThrow(/immutable|cannot go/);
    await api.db.query("UPDATE verification_submissions SET status = 'APPROVED', completed_at = now() WHERE id = $1", [
      id,
    ]);
    await expect(
      api.db.query("UPDATE verification_submissions SET status = 'REJECTED' WHERE id = $1", [id]),
    ).rejects.toThrow(/cannot go/);
    await expect(
      api.db.query(`UPDATE verification_submissions SET rejection_reasons = '["x"]' WHERE id = $1`, [id]),
    ).rejects.toThrow(/decided/);
  });
});

describe("a worker that crashes mid-job (failpoint after the provider call, before the database update)", () => {
  let api: ApiHarness;
  let m: TestMerchant;
  const reviewIds: string[] = [];
  const decisionsSeen: string[] = [];
  let crashSubmit = true;
  let crashDecision = true;

  beforeAll(async () => {
    const sandbox = createSandboxKycProvider({ reviewDelayMs: 100 });
    const kyc: KycProvider = {
      name: "sandbox-with-failpoints",
      createProfile: (request) => sandbox.createProfile(request),
      async submitReview(request) {
        const receipt = await sandbox.submitReview(request);
        reviewIds.push(receipt.reviewId);
        if (crashSubmit) {
          crashSubmit = false;
          throw new Error("failpoint: worker died after the provider accepted the review");
        }
        return receipt;
      },
      async getReview(reviewId) {
        const outcome = await sandbox.getReview(reviewId);
        if (outcome.status === "PENDING") return outcome;
        decisionsSeen.push(outcome.status);
        if (crashDecision) {
          crashDecision = false;
          throw new Error("failpoint: worker died after reading the decision");
        }
        return outcome;
      },
    };
    api = await startApiHarness({ workers: true, overrides: { kyc } });
    m = await api.merchant();
  });
  afterAll(() => api.stop());

  it("is retried by the queue and finishes with exactly one effect", async () => {
    const customerId = await createCustomer(api, m);
    const res = await submit(api, m, customerId, individualTier1());
    const id = res.body.data.id;
    const final = await decided(api, m, customerId, id);
    expect(final.status).toBe("APPROVED");

    // The provider was called twice for the same attempt and gave the same review both times.
    expect(reviewIds).toHaveLength(2);
    expect(new Set(reviewIds).size).toBe(1);
    expect(decisionsSeen).toEqual(["APPROVED", "APPROVED"]);
    const row = await submissionRow(api, id);
    expect(row).toMatchObject({ status: "APPROVED", provider_review_id: reviewIds[0], provider_checks: 2 });

    // pg-boss retried each crashed job once; each step left one follow-up, not two.
    const settled = async (name: string) =>
      eventually(async () => {
        const jobs = await jobsFor(api, name, id);
        return jobs.every((j) => j.state === "completed") ? jobs : undefined;
      });
    expect(await settled(SUBMIT_VERIFICATION_REVIEW_JOB)).toMatchObject([{ state: "completed", retry_count: 1 }]);
    expect(await settled(CHECK_VERIFICATION_REVIEW_JOB)).toMatchObject([{ state: "completed", retry_count: 1 }]);
    const customer = (await api.call(m.apiKey, `/v1/customers/${customerId}`)).body.data;
    expect(customer).toMatchObject({ status: "APPROVED", tier_1_complete: true });
  });
});
