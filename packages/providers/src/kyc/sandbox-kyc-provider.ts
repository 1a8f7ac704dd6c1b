import { createHash } from "node:crypto";
import { NotFoundError } from "@mp/core";
import type { KycProvider } from "./kyc-provider.ts";

/**
 * Sandbox KYC provider: deterministic, offline, and asynchronous like a real one. A submission is
 * decided `reviewDelayMs` after it was submitted (default 3 s); until then its review is PENDING.
 *
 * Magic values choose the outcome (compared trimmed and in any case):
 *
 * | field                                                        | value    | outcome         | rejection_reasons |
 * |--------------------------------------------------------------|----------|-----------------|-------------------|
 * | `last_name` (INDIVIDUAL), `legal_name` (BUSINESS), or any     | `Reject` | REJECTED        | `["Identity could not be verified against the submitted details"]` |
 * | `beneficial_owners[].last_name` (BUSINESS TIER_2)            |          |                 |                   |
 * | the same fields                                              | `Review` | REQUIRES_REVIEW | `["Address could not be verified; resubmit with a corrected address"]` |
 * | anything else                                                |          | APPROVED        | `[]`              |
 *
 * `Reject` wins over `Review` when both appear. A REQUIRES_REVIEW attempt may be corrected and
 * submitted again (a new attempt); REJECTED is final.
 *
 * The sandbox keeps no state: the review id carries the decision and the time it becomes visible,
 * so a review survives a restart of the worker (as a real provider's would), and a repeated
 * submission of the same attempt returns the same review id.
 */
export const SANDBOX_KYC_MAGIC_VALUES = {
  reject: "Reject",
  review: "Review",
} as const;

export const SANDBOX_KYC_REASONS = {
  REJECTED: ["Identity could not be verified against the submitted details"],
  REQUIRES_REVIEW: ["Address could not be verified; resubmit with a corrected address"],
} as const;

type Decision = "APPROVED" | "REQUIRES_REVIEW" | "REJECTED";
const DECISION_CODE: Record<Decision, string> = { APPROVED: "a", REQUIRES_REVIEW: "r", REJECTED: "x" };
const REVIEW_ID = /^kycr_sbx_[0-9a-f]{20}\.([arx])\.([0-9a-z]+)$/;

function magic(value: unknown): "reject" | "review" | undefined {
  if (typeof value !== "string") return undefined;
  const word = value.trim().toLowerCase();
  if (word === SANDBOX_KYC_MAGIC_VALUES.reject.toLowerCase()) return "reject";
  if (word === SANDBOX_KYC_MAGIC_VALUES.review.toLowerCase()) return "review";
  return undefined;
}

/** The outcome the sandbox gives a payload (exported for tests and documentation). */
export function sandboxKycDecision(payload: Readonly<Record<string, unknown>>): Decision {
  const names: unknown[] = [payload.last_name, payload.legal_name];
  const owners = payload.beneficial_owners;
  if (Array.isArray(owners)) {
    for (const owner of owners) {
      if (typeof owner === "object" && owner !== null && "last_name" in owner) names.push(owner.last_name);
    }
  }
  const hits = names.map(magic);
  if (hits.includes("reject")) return "REJECTED";
  if (hits.includes("review")) return "REQUIRES_REVIEW";
  return "APPROVED";
}

function digest(text: string, length: number): string {
  return createHash("sha256").update(text).digest("hex").slice(0, length);
}

export function createSandboxKycProvider(options: { reviewDelayMs?: number; now?: () => Date } = {}): KycProvider {
  const reviewDelayMs = options.reviewDelayMs ?? 3_000;
  const now = options.now ?? (() => new Date());
  return {
    name: "sandbox",
    async createProfile(request) {
      // Derived from the customer id, so a retried provisioning job gets the same profile.
      return { profileId: `kycp_sbx_${digest(request.customerId, 24)}` };
    },
    async submitReview(request) {
      const decision = sandboxKycDecision(request.payload);
      const readyAt = request.submittedAt.getTime() + reviewDelayMs;
      const reviewId = `kycr_sbx_${digest(request.submissionId, 20)}.${DECISION_CODE[decision]}.${readyAt.toString(36)}`;
      return { reviewId, checkAfterMs: Math.max(0, readyAt - now().getTime()) };
    },
    async getReview(reviewId) {
      const match = REVIEW_ID.exec(reviewId);
      if (!match) throw new NotFoundError("KYC review");
      if (now().getTime() < Number.parseInt(match[2] ?? "0", 36)) return { status: "PENDING" };
      switch (match[1]) {
        case "x":
          return { status: "REJECTED", reasons: [...SANDBOX_KYC_REASONS.REJECTED] };
        case "r":
          return { status: "REQUIRES_REVIEW", reasons: [...SANDBOX_KYC_REASONS.REQUIRES_REVIEW] };
        default:
          return { status: "APPROVED" };
      }
    },
  };
}
