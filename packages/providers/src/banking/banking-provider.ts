/**
 * The outside fiat banking provider: USD virtual accounts (account numbers at a partner bank that
 * belong to one customer) and the deposits that arrive on them.
 *
 * Opening an account answers at once with the account's deposit instructions, but the account only
 * accepts money once the bank has activated it (asynchronously: PROVISIONING -> ACTIVE, or FAILED);
 * a background job asks for the status. `openAccount` is keyed by our virtual account id, so a
 * repeated call returns the same account. A provider outage throws ServiceUnavailableError.
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

export interface BankingProvider {
  readonly name: string;
  openAccount(request: BankAccountRequest): Promise<OpenedBankAccount>;
  getAccountStatus(providerAccountId: string): Promise<BankAccountStatus>;
}
