import type { Queryable } from "@mp/db";
import { appendResourceEvent } from "@mp/events";
import { toCustomerResource } from "../customers/customer-store.ts";
import { defineRowQuery } from "../shared/list-page.ts";
import type { VerificationTier } from "./verification-payload-schemas.ts";
import type { VerificationStatus } from "./verification-schemas.ts";

export const UNRESOLVED_STATUSES: ReadonlySet<VerificationStatus> = new Set(["DRAFT", "SUBMITTED", "PENDING"]);

export interface LatestAttempt {
  tier: VerificationTier;
  attempt: number;
  status: VerificationStatus;
  rejectionReasons: string[];
}

/**
 * What a customer may do, as the customer resource shows it and as it is enforced. Crypto may arrive
 * (new wallets, deposits credited to available) until a verification is rejected: a merchant opens a
 * wallet while KYC runs. Tier 2 (documents, tax id, source of funds) unlocks fiat: USD virtual
 * accounts and payouts. A rejected customer may do nothing, whatever tier was approved before: no new
 * wallet, and crypto that still arrives is held (docs/operating.md "Held deposits").
 */
export interface CustomerCapabilities {
  crypto_deposits: boolean;
  virtual_accounts: boolean;
  payouts: boolean;
}

export interface CustomerVerificationState {
  status: "NOT_STARTED" | "UNDER_REVIEW" | "REQUIRES_REVIEW" | "APPROVED" | "REJECTED";
  tier_1_complete: boolean;
  tier_2_complete: boolean;
  capabilities: CustomerCapabilities;
  rejection_reasons: string[];
}

/**
 * The customer's verification fields, derived from the latest attempt of each tier (so applying the
 * same outcome twice changes nothing). Precedence: anything under review > a rejection > a request
 * for corrections > approved (Tier 1 at least).
 */
export function deriveCustomerVerification(latest: readonly LatestAttempt[]): CustomerVerificationState {
  const byTier = new Map(latest.map((a) => [a.tier, a]));
  const tier1 = byTier.get("TIER_1")?.status === "APPROVED";
  const tier2 = byTier.get("TIER_2")?.status === "APPROVED";
  const statuses = latest.map((a) => a.status);
  let status: CustomerVerificationState["status"];
  if (statuses.some((s) => UNRESOLVED_STATUSES.has(s))) status = "UNDER_REVIEW";
  else if (statuses.includes("REJECTED")) status = "REJECTED";
  else if (statuses.includes("REQUIRES_REVIEW")) status = "REQUIRES_REVIEW";
  else if (tier1) status = "APPROVED";
  else status = "NOT_STARTED";
  const allowed = status !== "REJECTED";
  const reasons = latest
    .filter((a) => a.status === "REJECTED" || a.status === "REQUIRES_REVIEW")
    .flatMap((a) => a.rejectionReasons);
  return {
    status,
    tier_1_complete: tier1,
    tier_2_complete: tier2,
    capabilities: {
      crypto_deposits: allowed,
      virtual_accounts: allowed && tier2,
      payouts: allowed && tier2,
    },
    rejection_reasons: [...new Set(reasons)],
  };
}

/** The latest attempt of each tier of one customer. */
export async function latestAttempts(sql: Queryable, customerId: string): Promise<LatestAttempt[]> {
  const result = await sql.query<{
    tier: VerificationTier;
    attempt: number;
    status: VerificationStatus;
    rejection_reasons: string[];
  }>(
    `SELECT DISTINCT ON (tier) tier, attempt, status, rejection_reasons
     FROM verification_submissions WHERE customer_id = $1 ORDER BY tier, attempt DESC`,
    [customerId],
  );
  return result.rows.map((row) => ({
    tier: row.tier,
    attempt: row.attempt,
    status: row.status,
    rejectionReasons: row.rejection_reasons,
  }));
}

/**
 * Writes the derived verification fields onto the customer. Callers hold the customer's row lock
 * (taken first, before touching its submissions) so two outcomes never interleave. A change of the
 * verification state (status, tiers, capabilities or reasons) is a `customer.status_changed` event in
 * the same transaction; re-deriving an unchanged state appends none.
 */
export async function refreshCustomerVerification(
  sql: Queryable,
  customerId: string,
  idempotencyKey?: string,
): Promise<CustomerVerificationState> {
  const state = deriveCustomerVerification(await latestAttempts(sql, customerId));
  // `before` is read in the same statement, under the caller's lock: the row as it was. The state
  // travels as one JSON value, its fields named as the columns they set.
  const result = await sql.query<Parameters<typeof toCustomerResource>[0] & { merchant_id: string; changed: boolean }>(
    `WITH before AS (
       SELECT status, tier_1_complete, tier_2_complete, capabilities, rejection_reasons FROM customers WHERE id = $1
     )
     UPDATE customers c SET status = s.status, tier_1_complete = s.tier_1_complete, tier_2_complete = s.tier_2_complete,
       capabilities = s.capabilities, rejection_reasons = s.rejection_reasons, updated_at = now()
     FROM before b, jsonb_to_record($2::jsonb) AS s(status text, tier_1_complete boolean, tier_2_complete boolean,
       capabilities jsonb, rejection_reasons jsonb)
     WHERE c.id = $1
     RETURNING c.merchant_id, c.id, c.type, c.first_name, c.last_name, c.business_name, c.email, c.external_reference,
       c.status, c.tier_1_complete, c.tier_2_complete, c.capabilities, c.rejection_reasons, c.created_at, c.updated_at,
       (b.status, b.tier_1_complete, b.tier_2_complete, b.capabilities, b.rejection_reasons)
         IS DISTINCT FROM (c.status, c.tier_1_complete, c.tier_2_complete, c.capabilities, c.rejection_reasons) AS changed`,
    [customerId, JSON.stringify(state)],
  );
  const row = result.rows[0];
  if (row?.changed) {
    await appendResourceEvent(sql, row.merchant_id, "customer.status_changed", toCustomerResource(row), idempotencyKey);
  }
  return state;
}

export interface LockedCustomer {
  id: string;
  type: "INDIVIDUAL" | "BUSINESS";
  status: string;
  tier_2_complete: boolean;
}

/**
 * Locks one customer of this merchant for a verification change (submissions, virtual accounts):
 * concurrent requests for the same customer then apply their rules one after the other.
 * Undefined when the customer is not this merchant's.
 */
export const lockCustomer = defineRowQuery<LockedCustomer>({
  from: "customers",
  columns: "id, type, status, tier_2_complete",
  lock: "FOR UPDATE",
});

/** Locks a customer by id alone (background jobs, which act for no merchant in particular). */
export async function lockCustomerById(sql: Queryable, customerId: string): Promise<void> {
  await sql.query("SELECT 1 FROM customers WHERE id = $1 FOR UPDATE", [customerId]);
}
