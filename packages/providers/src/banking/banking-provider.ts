/**
 * The outside fiat banking provider: USD virtual accounts (account numbers at a partner bank that
 * belong to one customer) and the deposits that arrive on them.
 *
 * Opening an account answers at once with the account's deposit instructions, but the account only
 * accepts money once the bank has activated it (asynchronously: PROVISIONING -> ACTIVE, or FAILED);
 * a background job asks for the status. `openAccount` is keyed by our virtual account id, so a
 * repeated call returns the same account. A provider outage throws ServiceUnavailableError.
 *
 * It also pays out (transfers to a US bank account): `sendPayout` is keyed by our transfer id and
 * answers at once; the payout then moves asynchronously and `getPayoutStatus` is asked until it ends.
 */
export interface BankAccountRequest {
  /** Our virtual account id: the provider's idempotency key. */
  virtualAccountId: string;
  customerId: string;
  currency: "USD";
  /** When we asked; the same on every retry of the same request. */
  requestedAt: Date;
  /** The verified account holder, as the bank will show them to senders. */
  beneficiary: { name: string; address: string };
}

/** Everything a sender needs to pay into the account. Secret at rest: the service encrypts it. */
export interface BankDepositInstructions {
  accountType: "CHECKING" | "SAVINGS";
  accountNumber: string;
  /** ABA routing transit number (9 digits, valid checksum). */
  routingNumber: string;
  iban: string;
  bic: string;
  bankName: string;
  bankAddress: string;
  beneficiaryName: string;
  beneficiaryAddress: string;
  /** The reference senders must quote so the bank credits this account. */
  depositMessage: string;
  paymentRails: string[];
}

export interface OpenedBankAccount {
  providerAccountId: string;
  instructions: BankDepositInstructions;
  /** When the provider expects the account to be active: the first status check is scheduled then. */
  checkAfterMs: number;
}

export type BankAccountStatus =
  | { status: "PROVISIONING" }
  | { status: "ACTIVE" }
  | { status: "FAILED"; reason: string };

/** A payout to a US bank account: what the bank is asked to pay, the same on every retry. */
export interface BankPayoutRequest {
  /** Our transfer id: the provider's idempotency key (a repeat returns the same payout). */
  payoutId: string;
  /** Decimal string in whole cents, e.g. "98.50". */
  amount: string;
  currency: "USD";
  /** When we first asked; the same on every retry of the same payout. */
  requestedAt: Date;
  creditor: { name: string; accountNumber: string; routingNumber: string; accountType: "CHECKING" | "SAVINGS" };
  /** Shown to the payee: the transfer's reference. */
  remittance: string;
}

/**
 * A payout's state at the provider. PENDING: accepted, not sent; SENT: left the bank, not confirmed;
 * COMPLETED: the bank confirmed it; FAILED: refused, no money left; RETURNED: completed, then sent
 * back by the payee's bank (the money is ours again).
 */
export type BankPayoutStatus =
  | { status: "PENDING" | "SENT" | "COMPLETED" }
  | { status: "FAILED" | "RETURNED"; reason: string };

export interface SentBankPayout {
  providerPayoutId: string;
  status: BankPayoutStatus;
}

export interface BankingProvider {
  readonly name: string;
  openAccount(request: BankAccountRequest): Promise<OpenedBankAccount>;
  getAccountStatus(providerAccountId: string): Promise<BankAccountStatus>;
  /** Idempotent by `payoutId`. A provider outage throws ServiceUnavailableError (the call is retried). */
  sendPayout(request: BankPayoutRequest): Promise<SentBankPayout>;
  getPayoutStatus(providerPayoutId: string): Promise<BankPayoutStatus>;
}
