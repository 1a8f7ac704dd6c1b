import { type ZodType, z } from "zod";

/**
 * What a verification attempt must contain, per tier and customer type (the spec leaves it to us).
 * Each attempt is complete on its own: Tier 2 repeats the Tier 1 facts and adds documents, because
 * the reviewer matches the documents against them. Objects are strict, so a misspelt field is a
 * 400 naming it rather than silently dropped data. Messages never echo the submitted value.
 */

export const VERIFICATION_TIERS = ["TIER_1", "TIER_2"] as const;
export type VerificationTier = (typeof VERIFICATION_TIERS)[number];

const text = (max: number) =>
  z.string().trim().min(1, "must not be empty").max(max, `must be at most ${max} characters`);

const countryCode = z.string().regex(/^[A-Z]{2}$/, "must be an ISO 3166-1 alpha-2 country code, e.g. US");

const calendarDate = z.iso.date("must be a calendar date (YYYY-MM-DD)");

/** Today's UTC date shifted by whole years, as YYYY-MM-DD (string order is date order). */
function utcDateYearsAgo(years: number): string {
  const date = new Date();
  date.setUTCFullYear(date.getUTCFullYear() - years);
  return date.toISOString().slice(0, 10);
}

const MINIMUM_AGE = 18;
const dateOfBirth = calendarDate
  .refine((value) => value <= utcDateYearsAgo(MINIMUM_AGE), `must be at least ${MINIMUM_AGE} years ago`)
  .refine((value) => value >= "1900-01-01", "must be on or after 1900-01-01");

const futureDate = calendarDate.refine((value) => value > utcDateYearsAgo(0), "must be in the future");

const address = z.strictObject({
  line1: text(200),
  line2: text(200).optional(),
  city: text(100),
  region: text(100).optional(),
  postal_code: text(20),
  country: countryCode,
});

const identityDocument = z.strictObject({
  type: z.enum(["PASSPORT", "NATIONAL_ID", "DRIVERS_LICENSE"]),
  number: z
    .string()
    .trim()
    .regex(/^[A-Za-z0-9-]{4,32}$/, "must be 4 to 32 letters, digits or hyphens"),
  issuing_country: countryCode,
  expiry_date: futureDate,
});

const taxId = z
  .string()
  .trim()
  .regex(/^[A-Za-z0-9-]{4,32}$/, "must be 4 to 32 letters, digits or hyphens");

export const SOURCES_OF_FUNDS = [
  "EMPLOYMENT",
  "BUSINESS_INCOME",
  "SAVINGS",
  "INVESTMENTS",
  "INHERITANCE",
  "GIFT",
  "OTHER",
] as const;
const sourceOfFunds = z.enum(SOURCES_OF_FUNDS);

const email = z.email("must be a valid email address").max(320);

const personFields = {
  first_name: text(100),
  middle_name: text(100).optional(),
  last_name: text(100),
  date_of_birth: dateOfBirth,
  nationality: countryCode,
  residential_address: address,
};

export const individualTier1Payload = z.strictObject({
  tier: z.literal("TIER_1"),
  ...personFields,
  email,
  phone: z
    .string()
    .regex(/^\+[1-9]\d{6,14}$/, "must be an E.164 phone number, e.g. +14155550123")
    .optional(),
});

export const individualTier2Payload = z.strictObject({
  ...individualTier1Payload.shape,
  tier: z.literal("TIER_2"),
  identity_document: identityDocument,
  tax_id: taxId,
  source_of_funds: sourceOfFunds,
});

const beneficialOwner = z.strictObject({
  ...personFields,
  /** Share of the business owned, in percent (0 for a controlling person without shares). */
  ownership_percentage: z.number().min(0, "must be at least 0").max(100, "must be at most 100"),
  identity_document: identityDocument,
});

export const businessTier1Payload = z.strictObject({
  tier: z.literal("TIER_1"),
  legal_name: text(200),
  trading_name: text(200).optional(),
  registration_number: text(64),
  incorporation_country: countryCode,
  incorporation_date: calendarDate.optional(),
  registered_address: address,
  email,
  website: z.url("must be a URL").max(200).optional(),
});

export const businessTier2Payload = z
  .strictObject({
    ...businessTier1Payload.shape,
    tier: z.literal("TIER_2"),
    tax_id: taxId,
    source_of_funds: sourceOfFunds,
    beneficial_owners: z
      .array(beneficialOwner)
      .min(1, "must list at least one beneficial owner")
      .max(10, "must list at most 10 beneficial owners"),
  })
  .superRefine((body, ctx) => {
    const total = body.beneficial_owners.reduce((sum, owner) => sum + owner.ownership_percentage, 0);
    if (total > 100) {
      ctx.addIssue({
        code: "custom",
        path: ["beneficial_owners"],
        message: "ownership percentages add up to more than 100",
      });
    }
  });

export type VerificationPayload = Record<string, unknown> & { tier: VerificationTier };

const PAYLOAD_SCHEMAS: Record<"INDIVIDUAL" | "BUSINESS", Record<VerificationTier, ZodType<VerificationPayload>>> = {
  INDIVIDUAL: { TIER_1: individualTier1Payload, TIER_2: individualTier2Payload },
  BUSINESS: { TIER_1: businessTier1Payload, TIER_2: businessTier2Payload },
};

export function payloadSchemaFor(customerType: "INDIVIDUAL" | "BUSINESS", tier: VerificationTier) {
  return PAYLOAD_SCHEMAS[customerType][tier];
}

/**
 * What the route itself parses: only the tier. The rest depends on the customer's type, known once
 * the customer is loaded; the handler then applies the specific schema. The OpenAPI document shows
 * all four shapes.
 */
export const submitVerificationBody = z.looseObject({ tier: z.enum(VERIFICATION_TIERS) }).meta({
  description:
    "The tier and the fields of that tier for the customer's type (INDIVIDUAL or BUSINESS); stored encrypted, never returned",
  oneOf: [individualTier1Payload, individualTier2Payload, businessTier1Payload, businessTier2Payload].map((schema) => {
    const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, { io: "input", unrepresentable: "any" });
    return rest;
  }),
});
