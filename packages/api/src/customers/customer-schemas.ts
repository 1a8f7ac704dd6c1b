import { z } from "zod";

export const CUSTOMER_TYPES = ["INDIVIDUAL", "BUSINESS"] as const;
export const CUSTOMER_STATUSES = [
  "PROVISIONING",
  "NOT_STARTED",
  "UNDER_REVIEW",
  "REQUIRES_REVIEW",
  "APPROVED",
  "REJECTED",
] as const;

const name = z.string().trim().min(1, "must not be empty").max(200, "must be at most 200 characters");

export const createCustomerBody = z
  .strictObject({
    type: z.enum(CUSTOMER_TYPES),
    first_name: name.optional(),
    last_name: name.optional(),
    business_name: name.optional(),
    email: z.email("must be a valid email address").max(320).optional(),
    external_reference: z.string().trim().min(1, "must not be empty").max(128).optional(),
  })
  .superRefine((body, ctx) => {
    // Which names are required depends on the type: a person has a first and last name, a business a name.
    if (body.type === "INDIVIDUAL") {
      for (const field of ["first_name", "last_name"] as const) {
        if (!body[field])
          ctx.addIssue({ code: "custom", path: [field], message: "is required for INDIVIDUAL customers" });
      }
    } else if (!body.business_name) {
      ctx.addIssue({ code: "custom", path: ["business_name"], message: "is required for BUSINESS customers" });
    }
  });
export type CreateCustomerBody = z.infer<typeof createCustomerBody>;

export const rfc3339 = z.iso.datetime({ offset: true, message: "must be an RFC 3339 timestamp" });

export const listCustomersQuery = z.object({
  external_reference: z.string().min(1).optional(),
  type: z.enum(CUSTOMER_TYPES).optional(),
  status: z.enum(CUSTOMER_STATUSES).optional(),
  created_from: rfc3339.optional(),
  created_to: rfc3339.optional(),
});

export const customerIdParams = z.object({ customer_id: z.uuid("must be a UUID") });

export const customerResource = z.object({
  id: z.uuid(),
  type: z.enum(CUSTOMER_TYPES),
  first_name: z.string().nullable(),
  last_name: z.string().nullable(),
  business_name: z.string().nullable(),
  email: z.string().nullable(),
  external_reference: z.string().nullable(),
  status: z.enum(CUSTOMER_STATUSES),
  tier_1_complete: z.boolean(),
  tier_2_complete: z.boolean(),
  capabilities: z.record(z.string(), z.unknown()),
  rejection_reasons: z.array(z.string()),
  created_at: z.iso.datetime(),
  updated_at: z.iso.datetime(),
});
export type CustomerResource = z.infer<typeof customerResource>;
