import type { Queryable } from "@mp/db";
import type { EncryptionKeyring } from "@mp/encryption";
import { z } from "zod";
import { approvedPayload } from "./verification-store.ts";

/**
 * The verified account holder of a Tier-2 customer, read from their approved Tier 2 attempt: the
 * name and address the bank shows as beneficiary. Parsed leniently (only these fields): the attempt
 * was fully validated when submitted, and date rules (document expiry) may no longer hold today.
 */
const addressOnRecord = z.object({
  line1: z.string(),
  line2: z.string().optional(),
  city: z.string(),
  region: z.string().optional(),
  postal_code: z.string(),
  country: z.string(),
});
const holderOnRecord = z.object({
  first_name: z.string().optional(),
  middle_name: z.string().optional(),
  last_name: z.string().optional(),
  legal_name: z.string().optional(),
  residential_address: addressOnRecord.optional(),
  registered_address: addressOnRecord.optional(),
});

export interface VerifiedHolder {
  name: string;
  address: string;
}

function formatAddress(address: z.infer<typeof addressOnRecord>): string {
  const locality = [address.city, address.region, address.postal_code].filter(Boolean).join(" ");
  return [address.line1, address.line2, locality, address.country].filter(Boolean).join(", ");
}

export async function loadVerifiedHolder(
  sql: Queryable,
  keyring: EncryptionKeyring,
  customerId: string,
): Promise<VerifiedHolder | undefined> {
  const approved = await approvedPayload(sql, customerId, "TIER_2");
  if (!approved) return undefined;
  const record = holderOnRecord.parse(keyring.openJson(approved.payload, approved.submissionId));
  const name = record.legal_name ?? [record.first_name, record.middle_name, record.last_name].filter(Boolean).join(" ");
  const address = record.registered_address ?? record.residential_address;
  if (!name || !address) return undefined;
  return { name, address: formatAddress(address) };
}
