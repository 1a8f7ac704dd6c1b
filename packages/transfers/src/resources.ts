import type { BankReturnState } from "./bank-returns/bank-return-store.ts";
import type { DepositReturnOrigin, DepositReturnState } from "./deposit-returns/send-deposit-return.ts";
import type { DestinationType, FundingMode, SourceMethod, TransferStatus } from "./statuses.ts";

/**
 * The quote's and transfer's API forms, as this package writes them (into events and answers):
 * @mp/api's zod schemas describe the same JSON for validation and /openapi.json.
 */

/** Spec 2.9's Money object: a fiat amount's network is its bank rail (ACH), a crypto amount's its chain id. */
export interface Money {
  asset: string;
  currency: string;
  network: string;
  value: string;
}

export interface Rate {
  base_currency: string;
  quote_currency: string;
  value: string;
}

/** A US bank account destination as a quote request gives it (the full details, encrypted at rest). */
export interface UsBankAccount {
  type: "US_BANK_ACCOUNT";
  account_holder_name: string;
  routing_number: string;
  account_number: string;
  account_type: "CHECKING" | "SAVINGS";
}

/** A bank account's public part, kept in the clear as JSON next to its sealed details. */
export interface BankMask {
  account_holder_name: string;
  account_number: string;
  routing_number: string;
  account_type: string;
}

/** The mask of an account: its number's last four digits only. */
export function bankMaskOf(bank: UsBankAccount): BankMask {
  return {
    account_holder_name: bank.account_holder_name,
    account_number: `****${bank.account_number.slice(-4)}`,
    routing_number: bank.routing_number,
    account_type: bank.account_type,
  };
}

/** The economics a quote fixes, which its transfer shows too. */
export interface QuoteTerms {
  source: { method: SourceMethod; asset: string; network: string };
  destination: {
    type: DestinationType;
    asset: string;
    network: string;
    address: string | null;
    bank_account: {
      account_holder_name: string;
      account_number: string;
      routing_number: string;
      account_type: string;
    } | null;
    /** Travel rule data given and sealed (readable by operators only). */
    beneficiary_on_file: boolean;
  };
  source_amount: Money;
  fee: Money;
  destination_amount: Money;
  rate: Rate;
}

export interface QuoteResource extends QuoteTerms {
  id: string;
  customer_id: string;
  expires_at: string;
  used: boolean;
  created_at: string;
}

export interface TransferResource extends QuoteTerms {
  id: string;
  quote_id: string;
  customer_id: string;
  status: TransferStatus;
  funding_mode: FundingMode;
  failure_reason: string | null;
  /** Its customer's payments sent back to their payers (the merchant's return policy; docs/returns.md). */
  returns: TransferReturnResource[];
  expires_at: string;
  created_at: string;
  updated_at: string;
}

/** A return of a transfer's money to its payer as the transfer resource shows it (`returns`). */
export interface TransferReturnResource {
  /** The customer's payment sent back. */
  deposit_id: string;
  /** Why: late funding, an over-payment's excess, the funds of a failed payout. */
  origin: DepositReturnOrigin;
  /** A bank return also `failed` (the bank refused it) or `closed` (an operator gave it up). */
  state: DepositReturnState | BankReturnState;
  /** What the payer gets (the payment less the network fee); null while nothing can be sent. */
  amount: Money | null;
  /** The network fee taken from the payment. */
  network_fee: Money;
  /** Back by bank: `BANK_ACCOUNT` on ACH, the payer's account not shown (sealed at rest). */
  destination: { type: "CRYPTO_ADDRESS" | "BANK_ACCOUNT"; network: string; address: string | null };
  /** Why it stays payable; null otherwise. */
  reason: string | null;
  /** The return's transaction once it is in a block; null before. */
  tx_hash: string | null;
  created_at: string;
  returned_at: string | null;
}
