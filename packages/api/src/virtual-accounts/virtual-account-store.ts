import { iso } from "@mp/core";
import { insertReturning, type Queryable } from "@mp/db";
import type { EncryptionKeyring, SealedValue } from "@mp/encryption";
import { appendResourceEvent } from "@mp/events";
import { defineListQuery, defineRowQuery } from "../shared/list-page.ts";
import {
  type StoredInstructions,
  storedInstructions,
  type VirtualAccountResource,
  type VirtualAccountStatus,
} from "./virtual-account-schemas.ts";

export interface VirtualAccountRow {
  id: string;
  merchant_id: string;
  customer_id: string;
  currency: "USD";
  status: VirtualAccountStatus;
  provider_account_id: string;
  account_number_last4: string;
  account_type: string;
  bank_name: string;
  supported_rails: string[];
  instructions_ciphertext: Buffer;
  instructions_key_id: string;
  failure_reason: string | null;
  provider_checks: number;
  created_at: Date;
  updated_at: Date;
}

const COLUMNS = `id, merchant_id, customer_id, currency, status, provider_account_id, account_number_last4,
  account_type, bank_name, supported_rails, instructions_ciphertext, instructions_key_id, failure_reason,
  provider_checks, created_at, updated_at`;

export async function insertVirtualAccount(
  sql: Queryable,
  input: {
    id: string;
    merchantId: string;
    customerId: string;
    providerAccountId: string;
    accountNumberLast4: string;
    accountType: string;
    bankName: string;
    supportedRails: string[];
    instructions: SealedValue;
  },
): Promise<VirtualAccountRow> {
  return insertReturning<VirtualAccountRow>(
    sql,
    `INSERT INTO virtual_accounts (id, merchant_id, customer_id, currency, provider_account_id, account_number_last4,
       account_type, bank_name, supported_rails, instructions_ciphertext, instructions_key_id)
     VALUES ($1, $2, $3, 'USD', $4, $5, $6, $7, $8::jsonb, $9, $10)
     RETURNING ${COLUMNS}`,
    [
      input.id,
      input.merchantId,
      input.customerId,
      input.providerAccountId,
      input.accountNumberLast4,
      input.accountType,
      input.bankName,
      JSON.stringify(input.supportedRails),
      input.instructions.ciphertext,
      input.instructions.keyId,
    ],
  );
}

/** The customer's live (PROVISIONING or ACTIVE) account in `currency`, if any. */
export async function findLiveVirtualAccount(
  sql: Queryable,
  customerId: string,
  currency: "USD",
): Promise<VirtualAccountRow | undefined> {
  const result = await sql.query<VirtualAccountRow>(
    `SELECT ${COLUMNS} FROM virtual_accounts
     WHERE customer_id = $1 AND currency = $2 AND status IN ('PROVISIONING', 'ACTIVE')`,
    [customerId, currency],
  );
  return result.rows[0];
}

/** One account of this merchant, or undefined (another merchant's looks exactly like a missing one). */
export const findVirtualAccount = defineRowQuery<VirtualAccountRow>({
  from: "virtual_accounts",
  columns: COLUMNS,
});

/**
 * The merchant's accounts (one customer's when `customer_id` is given), newest first, masked: a list
 * never opens the sealed instructions (the dashboard's virtual accounts page and customer page).
 */
export const listVirtualAccounts = defineListQuery(
  {
    from: "virtual_accounts",
    columns: COLUMNS,
    toItems: (rows: VirtualAccountRow[]) => rows.map(maskedVirtualAccount),
  },
  "merchant_id",
  (where, filters: { customer_id?: string | undefined; status?: VirtualAccountStatus | undefined }) =>
    where.equal(filters, "customer_id", "status"),
);

export async function loadVirtualAccount(
  sql: Queryable,
  virtualAccountId: string,
): Promise<VirtualAccountRow | undefined> {
  const result = await sql.query<VirtualAccountRow>(`SELECT ${COLUMNS} FROM virtual_accounts WHERE id = $1`, [
    virtualAccountId,
  ]);
  return result.rows[0];
}

/**
 * The account's event, in the transaction that changed it. Its `data` is the masked form (what a list
 * shows): events are stored in plain JSON and sent to webhook receivers, and full bank details stay
 * encrypted at rest and are shown only by GET /v1/virtual-accounts/{id}.
 */
export async function appendVirtualAccountEvent(
  sql: Queryable,
  type: "virtual_account.created" | "virtual_account.status_changed",
  row: VirtualAccountRow,
  keyring: EncryptionKeyring,
  idempotencyKey?: string,
): Promise<void> {
  await appendResourceEvent(sql, row.merchant_id, type, presentVirtualAccount(row, keyring, "masked"), idempotencyKey);
}

/**
 * PROVISIONING -> ACTIVE or FAILED, once (guarded by the job chain's `provider_checks`), with its
 * `virtual_account.status_changed` event (so `sql` is a transaction).
 */
export async function recordActivationOutcome(
  sql: Queryable,
  keyring: EncryptionKeyring,
  virtualAccountId: string,
  expectedChecks: number,
  outcome: { status: "ACTIVE" } | { status: "FAILED"; reason: string },
): Promise<boolean> {
  const result =
    outcome.status === "ACTIVE"
      ? await sql.query<VirtualAccountRow>(
          `UPDATE virtual_accounts SET status = 'ACTIVE', activated_at = now(), provider_checks = provider_checks + 1,
             updated_at = now()
           WHERE id = $1 AND status = 'PROVISIONING' AND provider_checks = $2 RETURNING ${COLUMNS}`,
          [virtualAccountId, expectedChecks],
        )
      : await sql.query<VirtualAccountRow>(
          `UPDATE virtual_accounts SET status = 'FAILED', failed_at = now(), failure_reason = $3,
             provider_checks = provider_checks + 1, updated_at = now()
           WHERE id = $1 AND status = 'PROVISIONING' AND provider_checks = $2 RETURNING ${COLUMNS}`,
          [virtualAccountId, expectedChecks, outcome.reason],
        );
  const row = result.rows[0];
  if (!row) return false;
  await appendVirtualAccountEvent(sql, "virtual_account.status_changed", row, keyring);
  return true;
}

/** The account's deposit instructions, opened (decrypted) and checked. */
export function openInstructions(row: VirtualAccountRow, keyring: EncryptionKeyring): StoredInstructions {
  return storedInstructions.parse(
    keyring.openJson({ keyId: row.instructions_key_id, ciphertext: row.instructions_ciphertext }, row.id),
  );
}

/**
 * The API form of an account. Full instructions are opened (decrypted) only when asked for and only
 * while ACTIVE (spec part 3 rule 4); every other answer shows the last four digits.
 */
export function presentVirtualAccount(
  row: VirtualAccountRow,
  keyring: EncryptionKeyring,
  detail: "masked" | "full-when-active",
): VirtualAccountResource {
  if (detail === "full-when-active" && row.status === "ACTIVE") {
    const i = openInstructions(row, keyring);
    const depositInstructions: VirtualAccountResource["deposit_instructions"] = {
      account_type: i.accountType,
      bank_account_number: i.accountNumber,
      bank_address: i.bankAddress,
      bank_beneficiary_address: i.beneficiaryAddress,
      bank_beneficiary_name: i.beneficiaryName,
      bank_name: i.bankName,
      bank_routing_number: i.routingNumber,
      bic: i.bic,
      deposit_message: i.depositMessage,
      iban: i.iban,
      payment_rails: i.paymentRails,
    };
    return { ...maskedVirtualAccount(row), deposit_instructions: depositInstructions };
  }
  return maskedVirtualAccount(row);
}

/** The account with the last four digits of its number only (no sealed value opened). */
export function maskedVirtualAccount(row: VirtualAccountRow): VirtualAccountResource {
  return {
    id: row.id,
    customer_id: row.customer_id,
    currency: row.currency,
    status: row.status,
    supported_rails: row.supported_rails,
    deposit_instructions: {
      account_number: `****${row.account_number_last4}`,
      account_type: row.account_type,
      bank_name: row.bank_name,
    },
    failure_reason: row.failure_reason,
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  };
}
