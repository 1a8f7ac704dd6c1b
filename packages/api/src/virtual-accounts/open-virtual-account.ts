import { randomUUID } from "node:crypto";
import { CustomerNotVerifiedError, NotFoundError } from "@mp/core";
import type { Queryable } from "@mp/db";
import type { AppDeps } from "../deps.ts";
import { lockCustomer } from "../verification/customer-verification.ts";
import { loadVerifiedHolder } from "../verification/verified-holder.ts";
import { CHECK_VIRTUAL_ACCOUNT_JOB } from "./virtual-account-activation-job.ts";
import type { VirtualAccountResource } from "./virtual-account-schemas.ts";
import { findLiveVirtualAccount, insertVirtualAccount, presentVirtualAccount } from "./virtual-account-store.ts";

/**
 * Opens the customer's USD virtual account (spec 4.4), or returns the live one it already has.
 *
 * Runs in the request's transaction with the customer's row locked, so two concurrent requests
 * (even with different idempotency keys) cannot open two accounts. The bank is asked synchronously,
 * keyed by the new account's id, because the creation answer carries the masked account number;
 * the activation (PROVISIONING -> ACTIVE) is then followed by a background job enqueued in the same
 * transaction. A bank outage is a 503 that leaves nothing behind.
 */
export async function openVirtualAccount(
  sql: Queryable,
  deps: Pick<AppDeps, "banking" | "encryption" | "jobs">,
  input: { merchantId: string; customerId: string; currency: "USD" },
): Promise<{ account: VirtualAccountResource; created: boolean }> {
  const customer = await lockCustomer(sql, input.merchantId, input.customerId);
  if (!customer) throw new NotFoundError("Customer");
  if (!customer.tier_2_complete || customer.status === "REJECTED") {
    throw new CustomerNotVerifiedError("A virtual account requires a customer verified at TIER_2");
  }
  const existing = await findLiveVirtualAccount(sql, customer.id, input.currency);
  if (existing) return { account: presentVirtualAccount(existing, deps.encryption, "masked"), created: false };

  const holder = await loadVerifiedHolder(sql, deps.encryption, customer.id);
  if (!holder) throw new CustomerNotVerifiedError("The customer's TIER_2 verification has no account holder on record");
  const id = randomUUID();
  const opened = await deps.banking.openAccount({
    virtualAccountId: id,
    customerId: customer.id,
    currency: input.currency,
    requestedAt: new Date(),
    beneficiary: holder,
  });
  const row = await insertVirtualAccount(sql, {
    id,
    merchantId: input.merchantId,
    customerId: customer.id,
    providerAccountId: opened.providerAccountId,
    accountNumberLast4: opened.instructions.accountNumber.slice(-4),
    accountType: opened.instructions.accountType,
    bankName: opened.instructions.bankName,
    supportedRails: opened.instructions.paymentRails,
    instructions: deps.encryption.sealJson(opened.instructions, id),
  });
  await deps.jobs.send(
    CHECK_VIRTUAL_ACCOUNT_JOB,
    { virtualAccountId: id, check: 0 },
    { client: sql, startAfterSeconds: opened.checkAfterMs / 1000 },
  );
  return { account: presentVirtualAccount(row, deps.encryption, "masked"), created: true };
}
