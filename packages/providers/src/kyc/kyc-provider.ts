/**
 * The outside KYC provider. Customer creation provisions a verification profile there
 * (asynchronously, by a background job); verification submissions are reviewed there, also
 * asynchronously: the submission is handed over, and its outcome is asked for later by a job.
 *
 * Every call that creates something at the provider is keyed by our own id (customer id,
 * submission id), so a job that runs again after a crash gets the same answer, not a duplicate.
 * A provider outage throws ServiceUnavailableError (retryable).
 */
export interface KycProfileRequest {
  customerId: string;
  type: "INDIVIDUAL" | "BUSINESS";
  email: string | null;
}

export type VerificationTier = "TIER_1" | "TIER_2";

export interface KycReviewRequest {
  /** Our submission id: the provider's idempotency key for this review. */
  submissionId: string;
  profileId: string;
  customerType: "INDIVIDUAL" | "BUSINESS";
  tier: VerificationTier;
  /** When we accepted the submission. */
  submittedAt: Date;
  /** The validated KYC/KYB payload: plaintext only in memory, on its way to the provider. */
  payload: Readonly<Record<string, unknown>>;
}

export interface KycReviewReceipt {
  reviewId: string;
  /** When the provider expects to have a decision: the first status check is scheduled then. */
  checkAfterMs: number;
}

export type KycReviewOutcome =
  | { status: "PENDING" }
  | { status: "APPROVED" }
  | { status: "REQUIRES_REVIEW"; reasons: string[] }
  | { status: "REJECTED"; reasons: string[] };

export interface KycProvider {
  readonly name: string;
  /** Creates (or, for a repeated customerId, returns) the provider's profile. Idempotent. */
  createProfile(request: KycProfileRequest): Promise<{ profileId: string }>;
  /** Hands a submission over for review. Idempotent per submissionId: a repeat returns the same review. */
  submitReview(request: KycReviewRequest): Promise<KycReviewReceipt>;
  /** The review's state: PENDING until the provider decides, then the decision (never changes again). */
  getReview(reviewId: string): Promise<KycReviewOutcome>;
}
