import { CustomerNotVerifiedError, NotFoundError } from "@mp/core";
import type { Queryable } from "@mp/db";
import type { SourceMethod } from "./statuses.ts";

/**
 * Who may take part in a transfer, as a regulated money transmitter sets it (docs/transfers.md "KYC gates"):
 * - a customer paying by bank (BANK_TRANSFER) or paid to a US bank account must be verified at
 *   Tier 2 (identity and address documents: the bank rails' KYC bar, as for virtual accounts);
 * - every other transfer (crypto funding, merchant-balance funding, a crypto destination) needs Tier 1;
 * - a REJECTED customer takes part in none.
 * Checked when quoting and again when the transfer is created (a verification may have changed).
 */
export async function assertTransferAllowed(
  sql: Queryable,
  merchantId: string,
  customerId: string,
  source: SourceMethod,
  destination: "CRYPTO_ADDRESS" | "US_BANK_ACCOUNT",
): Promise<void> {
  const result = await sql.query<{ status: string; tier_1_complete: boolean; tier_2_complete: boolean }>(
    "SELECT status, tier_1_complete, tier_2_complete FROM customers WHERE merchant_id = $1 AND id = $2",
    [merchantId, customerId],
  );
  const customer = result.rows[0];
  if (!customer) throw new NotFoundError("Customer");
  if (customer.status === "REJECTED") throw new CustomerNotVerifiedError("The customer's verification was rejected");
  const tier2 = source === "BANK_TRANSFER" || destination === "US_BANK_ACCOUNT";
  if (tier2 && !customer.tier_2_complete) {
    throw new CustomerNotVerifiedError("Bank transfers need a customer verified at Tier 2");
  }
  if (!customer.tier_1_complete && !customer.tier_2_complete) {
    throw new CustomerNotVerifiedError("Transfers need a customer verified at Tier 1");
  }
}
