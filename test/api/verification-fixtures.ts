import { type ApiHarness, eventually, type TestMerchant } from "../support/api-harness.ts";

/** Valid KYC/KYB payloads for every tier and customer type (tests override fields). */
export const homeAddress = {
  line1: "12 Saint James Square",
  city: "London",
  postal_code: "SW1Y 4JH",
  country: "GB",
};

const passport = { type: "PASSPORT", number: "P1234567", issuing_country: "GB", expiry_date: "2099-01-31" };

/** A British resident's personal details, as the customer and a beneficial owner give them. */
const person = (firstName: string, lastName: string, dateOfBirth: string) => ({
  first_name: firstName,
  last_name: lastName,
  date_of_birth: dateOfBirth,
  nationality: "GB",
  residential_address: homeAddress,
});

/**
 * A payload maker: `valid` with the test's fields over it (`undefined` to leave one out). The copy is
 * shallow: tests replace nested values, never mutate them.
 */
const payload =
  <T extends object>(valid: T) =>
  (over: Record<string, unknown> = {}) => ({ ...valid, ...over });

export const individualTier1 = payload({
  tier: "TIER_1",
  ...person("Augusta", "Lovelace", "1985-12-10"),
  email: "augusta@example.com",
});

export const individualTier2 = payload({
  ...individualTier1(),
  tier: "TIER_2",
  identity_document: passport,
  tax_id: "QQ123456C",
  source_of_funds: "EMPLOYMENT",
});

export const businessTier1 = payload({
  tier: "TIER_1",
  legal_name: "Analytical Engines Ltd",
  registration_number: "01234567",
  incorporation_country: "GB",
  registered_address: { line1: "1 Babbage Street", city: "London", postal_code: "EC1A 1BB", country: "GB" },
  email: "ops@engines.example",
});

export const businessTier2 = payload({
  ...businessTier1(),
  tier: "TIER_2",
  tax_id: "GB123456789",
  source_of_funds: "BUSINESS_INCOME",
  beneficial_owners: [
    {
      ...person("Charles", "Babbage", "1971-12-26"),
      ownership_percentage: 60,
      identity_document: passport,
    },
  ],
});

/** Every string value of a payload (for "never stored or shown in clear" checks). */
export function stringValues(value: unknown): string[] {
  if (typeof value === "string") return [value];
  if (Array.isArray(value)) return value.flatMap(stringValues);
  if (value !== null && typeof value === "object") return Object.values(value).flatMap(stringValues);
  return [];
}

let sequence = 0;
export function nextKey(prefix: string): string {
  sequence += 1;
  return `${prefix}-${process.pid}-${sequence}-${Math.random().toString(36).slice(2, 8)}`;
}

export async function createCustomer(
  api: Pick<ApiHarness, "call">,
  m: TestMerchant,
  type: "INDIVIDUAL" | "BUSINESS" = "INDIVIDUAL",
): Promise<string> {
  const json =
    type === "INDIVIDUAL" ? { type, first_name: "Test", last_name: "Person" } : { type, business_name: "Test Co" };
  const res = await api.call(m.apiKey, "/v1/customers", { method: "POST", idempotencyKey: nextKey("cust"), json });
  if (res.status !== 202) throw new Error(`customer create failed: ${res.text}`);
  return res.body.data.id;
}

export function submit(
  api: Pick<ApiHarness, "call">,
  m: TestMerchant,
  customerId: string,
  json: unknown,
  idempotencyKey?: string,
) {
  return api.call(m.apiKey, `/v1/customers/${customerId}/verification-submissions`, {
    method: "POST",
    idempotencyKey: idempotencyKey ?? nextKey("sub"),
    json,
  });
}

/** Waits until the attempt leaves SUBMITTED/PENDING and returns its final state. */
export async function decided(
  api: Pick<ApiHarness, "call">,
  m: TestMerchant,
  customerId: string,
  submissionId: string,
) {
  return eventually(async () => {
    const res = await api.call(m.apiKey, `/v1/customers/${customerId}/verification-submissions/${submissionId}`);
    return ["SUBMITTED", "PENDING"].includes(res.body.data.status) ? undefined : res.body.data;
  }, 20_000);
}

/** A customer verified at Tier 1 through the API (needs workers). */
export async function tier1Customer(
  api: Pick<ApiHarness, "call">,
  m: TestMerchant,
  over: { lastName?: string } = {},
): Promise<string> {
  const customerId = await createCustomer(api, m);
  const t1 = await submit(api, m, customerId, individualTier1({ last_name: over.lastName ?? "Lovelace" }));
  if ((await decided(api, m, customerId, t1.body.data.id)).status !== "APPROVED")
    throw new Error("tier 1 not approved");
  return customerId;
}

/** A customer verified at Tier 1 and Tier 2 through the API (needs workers). */
export async function tier2Customer(
  api: Pick<ApiHarness, "call">,
  m: TestMerchant,
  over: { lastName?: string } = {},
): Promise<string> {
  const lastName = over.lastName ?? "Lovelace";
  const customerId = await tier1Customer(api, m, { lastName });
  const t2 = await submit(api, m, customerId, individualTier2({ last_name: lastName }));
  if ((await decided(api, m, customerId, t2.body.data.id)).status !== "APPROVED")
    throw new Error("tier 2 not approved");
  return customerId;
}
