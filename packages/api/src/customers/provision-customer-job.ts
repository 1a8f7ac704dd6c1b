import type { AppDeps } from "../deps.ts";
import { markCustomerProvisioned } from "./customer-store.ts";

export const PROVISION_CUSTOMER_JOB = "customer.provision";

/**
 * Creates the customer's verification profile at the KYC provider and moves the customer from
 * PROVISIONING to NOT_STARTED. Safe to run twice: the provider call is idempotent per customer and
 * the status change only applies from PROVISIONING.
 */
export async function provisionCustomer(
  deps: Pick<AppDeps, "db" | "kyc" | "logger">,
  data: { customerId: string },
): Promise<void> {
  const row = await deps.db.query<{ type: "INDIVIDUAL" | "BUSINESS"; email: string | null; status: string }>(
    "SELECT type, email, status FROM customers WHERE id = $1",
    [data.customerId],
  );
  const customer = row.rows[0];
  if (customer?.status !== "PROVISIONING") return;
  const profile = await deps.kyc.createProfile({
    customerId: data.customerId,
    type: customer.type,
    email: customer.email,
  });
  const changed = await deps.db.tx((client) => markCustomerProvisioned(client, data.customerId, profile.profileId));
  if (changed) deps.logger.info({ customerId: data.customerId }, "customer verification profile provisioned");
}
