import { createHash } from "node:crypto";
import { CustomerNotVerifiedError, NotFoundError, ServiceUnavailableError } from "@mp/core";
import { type Queryable, SqlState, sqlState } from "@mp/db";
import type { OpenedBankAccount } from "@mp/providers";
import type { AppDeps } from "../deps.ts";
import { lockCustomer } from "../verification/customer-verification.ts";
import { loadVerifiedHolder } from "../verification/verified-holder.ts";
import { CHECK_VIRTUAL_ACCOUNT_JOB } from "./virtual-account-activation-job.ts";
import type { VirtualAccountResource } from "./virtual-account-schemas.ts";
import {
  appendVirtualAccountEvent,
  findLiveVirtualAccount,
  insertVirtualAccount,
  presentVirtualAccount,
} from "./virtual-account-store.ts";

/** What the bank was asked before the request's transaction (see askBankForAccount). */
export interface BankAccountAsked {
  /** The account's id, the bank's idempotency key. */
  id: string;
  /** The bank's answer; undefined when the customer could not have an account (the handler says why). */
  opened: OpenedBankAccount | undefined;
}

/**
 * Asks the bank for the customer's account before the request's transaction opens: no database
 * lock or transaction is held while an outside provider answers (a slow bank would otherwise hold
 * the customer's row and everything waiting on it). Reads only; the rules are applied again under
 * the lock by openVirtualAccount. The id is derived from the customer, currency and the number of
 * accounts the bank already declined, so concurrent or retried requests ask for the same account
 * (the bank's open is idempotent by our id) and none is opened at the bank for nothing.
 */
export async function askBankForAccount(
  deps: Pick<AppDeps, "db" | "banking" | "encryption">,
  input: { merchantId: string; customerId: string; currency: "USD" },
): Promise<BankAccountAsked> {
  const { rows } = await deps.db.query<{ id: string; tier_2_complete: boolean; status: string; declined: string }>(
    `SELECT c.id, c.tier_2_complete, c.status,
            (SELECT count(*) FROM virtual_accounts v
              WHERE v.customer_id = c.id AND v.currency = $3 AND v.status = 'FAILED') AS declined
       FROM customers c WHERE c.merchant_id = $1 AND c.id = $2`,
    [input.merchantId, input.customerId, input.currency],
  );
  const customer = rows[0];
  const id = accountId(input.customerId, input.currency, customer?.declined ?? "0");
  if (!customer?.tier_2_complete || customer.status === "REJECTED") return { id, opened: undefined };
  if (await findLiveVirtualAccount(deps.db, customer.id, input.currency)) return { id, opened: undefined };
  const holder = await loadVerifiedHolder(deps.db, deps.encryption, customer.id);
  if (!holder) return { id, opened: undefined };
  const opened = await deps.banking.openAccount({
    virtualAccountId: id,
    customerId: customer.id,
    currency: input.currency,
    requestedAt: new Date(),
    beneficiary: holder,
  });
  return { id, opened };
}

/** A UUID (version 8, RFC 9562) from the account's identity: the same request, the same account. */
function accountId(customerId: string, currency: string, declined: string): string {
  const hex = createHash("sha256").update(`virtual-account:${customerId}:${currency}:${declined}`).digest("hex");
  const variant = ((Number.parseInt(hex.charAt(16), 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/**
 * Opens the customer's USD virtual account (spec 4.4), or returns the live one it already has.
 *
 * Runs in the request's transaction with the customer's row locked, so two concurrent requests
 * (even with different idempotency keys) cannot open two accounts. The bank was asked before the
 * transaction (askBankForAccount), because the creation answer carries the masked account number;
 * the activation (PROVISIONING -> ACTIVE) is then followed by a background job enqueued in the same
 * transaction. A bank outage is a 503 that leaves nothing behind.
 */
export async function openVirtualAccount(
  sql: Queryable,
  deps: Pick<AppDeps, "encryption" | "jobs">,
  input: {
    merchantId: string;
    customerId: string;
    currency: "USD";
    asked: BankAccountAsked;
    idempotencyKey?: string | undefined;
  },
): Promise<{ account: VirtualAccountResource; created: boolean }> {
  const customer = await lockCustomer(sql, input.merchantId, input.customerId);
  if (!customer) throw new NotFoundError("Customer");
  if (!customer.tier_2_complete || customer.status === "REJECTED") {
    throw new CustomerNotVerifiedError("A virtual account requires a customer verified at TIER_2");
  }
  const existing = await findLiveVirtualAccount(sql, customer.id, input.currency);
  if (existing) return { account: presentVirtualAccount(existing, deps.encryption, "masked"), created: false };
  const { id, opened } = input.asked;
  if (!opened) {
    if (!(await loadVerifiedHolder(sql, deps.encryption, customer.id))) {
      throw new CustomerNotVerifiedError("The customer's TIER_2 verification has no account holder on record");
    }
    // The customer became eligible between the bank call and this transaction: ask again.
    throw new ServiceUnavailableError("The customer's verification changed while the account was opened; retry");
  }
  let row: Awaited<ReturnType<typeof insertVirtualAccount>>;
  try {
    row = await insertVirtualAccount(sql, {
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
  } catch (error) {
    // The account this id names was opened and already declined meanwhile: a new request asks anew.
    if (sqlState(error) === SqlState.uniqueViolation) {
      throw new ServiceUnavailableError("The bank declined this account meanwhile; retry to open another");
    }
    throw error;
  }
  await appendVirtualAccountEvent(sql, "virtual_account.created", row, deps.encryption, input.idempotencyKey);
  await deps.jobs.send(
    CHECK_VIRTUAL_ACCOUNT_JOB,
    { virtualAccountId: id, check: 0 },
    { client: sql, startAfterSeconds: opened.checkAfterMs / 1000 },
  );
  return { account: presentVirtualAccount(row, deps.encryption, "masked"), created: true };
}
