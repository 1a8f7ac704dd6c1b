import { describe, expect, it } from "vitest";
import { createSandboxKycProvider, SANDBOX_KYC_REASONS, sandboxKycDecision } from "../src/index.ts";

const individual = (lastName: string) => ({
  tier: "TIER_1",
  first_name: "Ada",
  last_name: lastName,
  date_of_birth: "1990-01-01",
});

function clock(start: number) {
  let t = start;
  return { now: () => new Date(t), advance: (ms: number) => (t += ms) };
}

describe("sandbox KYC provider", () => {
  it("decides by the documented magic values, in any case, Reject winning over Review", () => {
    expect(sandboxKycDecision(individual("Lovelace"))).toBe("APPROVED");
    expect(sandboxKycDecision(individual("Review"))).toBe("REQUIRES_REVIEW");
    expect(sandboxKycDecision(individual(" review "))).toBe("REQUIRES_REVIEW");
    expect(sandboxKycDecision(individual("Reject"))).toBe("REJECTED");
    expect(sandboxKycDecision(individual("REJECT"))).toBe("REJECTED");
    expect(sandboxKycDecision(individual("Reviewer"))).toBe("APPROVED");
    expect(sandboxKycDecision({ legal_name: "Review" })).toBe("REQUIRES_REVIEW");
    expect(sandboxKycDecision({ legal_name: "Reject" })).toBe("REJECTED");
    expect(
      sandboxKycDecision({ legal_name: "Acme Ltd", beneficial_owners: [{ last_name: "Ok" }, { last_name: "Review" }] }),
    ).toBe("REQUIRES_REVIEW");
    expect(sandboxKycDecision({ legal_name: "Review", beneficial_owners: [{ last_name: "Reject" }] })).toBe("REJECTED");
    expect(sandboxKycDecision({ legal_name: "Acme", beneficial_owners: "not-a-list" })).toBe("APPROVED");
  });

  it("reviews asynchronously: PENDING until the delay after submission, then the outcome, for each magic value", async () => {
    const c = clock(Date.UTC(2025, 0, 1));
    const kyc = createSandboxKycProvider({ reviewDelayMs: 5_000, now: c.now });
    const submittedAt = c.now();
    const cases = [
      ["Lovelace", { status: "APPROVED" }],
      ["Review", { status: "REQUIRES_REVIEW", reasons: [...SANDBOX_KYC_REASONS.REQUIRES_REVIEW] }],
      ["Reject", { status: "REJECTED", reasons: [...SANDBOX_KYC_REASONS.REJECTED] }],
    ] as const;
    const receipts = [];
    for (const [lastName] of cases) {
      const receipt = await kyc.submitReview({
        submissionId: `sub-${lastName}`,
        profileId: "p",
        customerType: "INDIVIDUAL",
        tier: "TIER_1",
        submittedAt,
        payload: individual(lastName),
      });
      expect(receipt.checkAfterMs).toBe(5_000);
      receipts.push(receipt);
    }
    for (const receipt of receipts) expect(await kyc.getReview(receipt.reviewId)).toEqual({ status: "PENDING" });
    c.advance(4_999);
    for (const receipt of receipts) expect((await kyc.getReview(receipt.reviewId)).status).toBe("PENDING");
    c.advance(1);
    for (const [i, [, outcome]] of cases.entries()) {
      expect(await kyc.getReview(receipts[i]?.reviewId ?? "")).toEqual(outcome);
    }
  });

  it("is idempotent per submission id, and answers from the review id alone (a fresh instance, as after a restart)", async () => {
    const c = clock(Date.UTC(2025, 0, 1));
    const request = {
      submissionId: "5b2d4c58-8f53-4a3e-9f63-0a4c2b1e7d10",
      profileId: "p",
      customerType: "INDIVIDUAL" as const,
      tier: "TIER_2" as const,
      submittedAt: c.now(),
      payload: individual("Review"),
    };
    const first = await createSandboxKycProvider({ reviewDelayMs: 100, now: c.now }).submitReview(request);
    c.advance(50);
    const again = await createSandboxKycProvider({ reviewDelayMs: 100, now: c.now }).submitReview(request);
    expect(again.reviewId).toBe(first.reviewId);
    expect(again.checkAfterMs).toBe(50);
    const other = await createSandboxKycProvider({ reviewDelayMs: 100, now: c.now }).submitReview({
      ...request,
      submissionId: "other",
    });
    expect(other.reviewId).not.toBe(first.reviewId);
    c.advance(50);
    const restarted = createSandboxKycProvider({ now: c.now });
    expect((await restarted.getReview(first.reviewId)).status).toBe("REQUIRES_REVIEW");
    await expect(restarted.getReview("kycr_unknown")).rejects.toThrow(/not found/);
  });

  it("keeps the review id free of payload values", async () => {
    const kyc = createSandboxKycProvider({ reviewDelayMs: 0 });
    const receipt = await kyc.submitReview({
      submissionId: "s",
      profileId: "p",
      customerType: "INDIVIDUAL",
      tier: "TIER_1",
      submittedAt: new Date(),
      payload: individual("Lovelace"),
    });
    expect(receipt.reviewId).not.toMatch(/Lovelace|Ada|1990/i);
  });

  it("derives profile ids from the customer id (a retried provisioning gets the same profile)", async () => {
    const kyc = createSandboxKycProvider();
    const a = await kyc.createProfile({ customerId: "c1", type: "INDIVIDUAL", email: null });
    expect(await kyc.createProfile({ customerId: "c1", type: "INDIVIDUAL", email: "x@y.z" })).toEqual(a);
    expect((await kyc.createProfile({ customerId: "c2", type: "INDIVIDUAL", email: null })).profileId).not.toBe(
      a.profileId,
    );
  });
});
