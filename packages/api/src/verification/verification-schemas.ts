import { z } from "zod";
import { CUSTOMER_TYPES } from "../customers/customer-schemas.ts";
import { VERIFICATION_TIERS } from "./verification-payload-schemas.ts";

/** DESIGN.md vocabulary. DRAFT is never produced by this API (it submits at once) but is unresolved. */
export const VERIFICATION_STATUSES = [
  "DRAFT",
  "SUBMITTED",
  "PENDING",
  "REQUIRES_REVIEW",
  "APPROVED",
  "REJECTED",
] as const;
export type VerificationStatus = (typeof VERIFICATION_STATUSES)[number];

export const customerPathParams = z.object({ customer_id: z.uuid("must be a UUID") });
export const submissionPathParams = z.object({
  customer_id: z.uuid("must be a UUID"),
  submission_id: z.uuid("must be a UUID"),
});

export const listSubmissionsQuery = z.object({
  tier: z.enum(VERIFICATION_TIERS).optional(),
  status: z.enum(VERIFICATION_STATUSES).optional(),
});

/** The safe state of an attempt (spec 2.3): never the payload. */
export const verificationSubmissionResource = z.object({
  id: z.uuid(),
  customer_id: z.uuid(),
  customer_type: z.enum(CUSTOMER_TYPES),
  tier: z.enum(VERIFICATION_TIERS),
  status: z.enum(VERIFICATION_STATUSES),
  rejection_reasons: z.array(z.string()),
  submitted_at: z.iso.datetime().nullable(),
  completed_at: z.iso.datetime().nullable(),
  created_at: z.iso.datetime(),
  updated_at: z.iso.datetime(),
});
export type VerificationSubmissionResource = z.infer<typeof verificationSubmissionResource>;
