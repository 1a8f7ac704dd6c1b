import { iso } from "@mp/core";
import type { Queryable } from "@mp/db";
import type { EncryptionKeyring } from "@mp/encryption";
import { type IntentRow, type TransferRow, toMoney } from "@mp/transfers";
import { findLiveVirtualAccount, openInstructions } from "../virtual-accounts/virtual-account-store.ts";
import type { TransferFundingResource } from "./transfer-schemas.ts";

/**
 * Where a bank-funded intent's customer pays: its ACTIVE USD virtual account, with the intent's
 * reference. null while the customer has no ACTIVE account (spec 2.9: an intent without
 * instructions is still being provisioned; POST /v1/virtual-accounts opens one).
 */
async function bankTransferOf(
  sql: Queryable,
  keyring: EncryptionKeyring,
  transfer: TransferRow,
  intent: IntentRow,
): Promise<TransferFundingResource["intent"]["bank_transfer"]> {
  if (intent.method !== "BANK_TRANSFER") return null;
  const account = await findLiveVirtualAccount(sql, transfer.customer_id, "USD");
  if (account?.status !== "ACTIVE") return null;
  const instructions = openInstructions(account, keyring);
  return {
    account_name: instructions.beneficiaryName,
    account_number: instructions.accountNumber,
    bank_code: instructions.routingNumber,
    bank_name: instructions.bankName,
    narration: intent.narration,
    reference: intent.reference,
  };
}

/**
 * Where a crypto-funded intent's customer pays: the intent's own address on the quoted network (a
 * fresh one, never reused, so the address alone names the intent: no chain here needs a memo, which
 * is "" then), the quoted asset, and the intent's reference for the payer's records. null while the
 * address is being provisioned (spec 2.9: poll).
 */
async function cryptoDepositOf(
  sql: Queryable,
  intent: IntentRow,
): Promise<TransferFundingResource["intent"]["crypto_deposit"]> {
  if (intent.method !== "CRYPTO_DEPOSIT" || intent.deposit_destination_id === null) return null;
  const result = await sql.query<{ address: string }>("SELECT address FROM destinations WHERE id = $1", [
    intent.deposit_destination_id,
  ]);
  const address = result.rows[0]?.address;
  if (address === undefined) return null;
  return { address, asset: intent.asset, memo: "", network: intent.network, reference: intent.reference };
}

/** GET /v1/transfers/{id}/funding: spec 2.9, exactly its fields. */
export async function presentFunding(
  sql: Queryable,
  keyring: EncryptionKeyring,
  transfer: TransferRow,
  intent: IntentRow,
): Promise<TransferFundingResource> {
  const payer = {
    type: intent.payer_type,
    customer_id: intent.payer_type === "CUSTOMER" ? transfer.customer_id : null,
  };
  const required = toMoney(intent.asset, intent.network, intent.required_amount, intent.decimals);
  return {
    transfer_id: transfer.id,
    transfer_status: transfer.status,
    customer_id: transfer.customer_id,
    funding: {
      mode: transfer.funding_mode,
      method: intent.method,
      expires_at: iso(intent.expires_at),
      payer,
      rate: {
        base_currency: transfer.source_asset,
        quote_currency: transfer.destination_asset,
        value: transfer.rate_value,
      },
      required_amount: required,
      fee: toMoney(transfer.source_asset, transfer.source_network, transfer.fee_amount, transfer.source_decimals),
    },
    intent: {
      id: intent.id,
      status: intent.status,
      purpose: transfer.funding_mode,
      method: intent.method,
      payer,
      required_amount: required,
      reusable: false,
      expires_at: iso(intent.expires_at),
      bank_transfer: await bankTransferOf(sql, keyring, transfer, intent),
      crypto_deposit: await cryptoDepositOf(sql, intent),
      flag: intent.flag_code && intent.flag_message ? { code: intent.flag_code, message: intent.flag_message } : null,
    },
  };
}
