import { NotFoundError, ServiceUnavailableError } from "@mp/core";
import { type Database, isConnectionError } from "@mp/db";
import type { BankAccountRequest, BankDepositInstructions, BankingProvider } from "./banking-provider.ts";

/**
 * Banking by statement import (`BANKING_PROVIDER=statement`), for an operator whose bank gives it a
 * block of account numbers (virtual accounts on a pooled collection account) and a statement file
 * a day, but no API. Opening a virtual account takes the next number of the configured range
 * (never reused: a sequence); the account is active at once, since the bank already routes the
 * whole range to the operator. Money arrives when finance imports the bank's statement
 * (`payments bank import FILE`), matched to the account by its number.
 */
export interface StatementBankSettings {
  bankName: string;
  bankAddress: string;
  /** ABA routing number, checked at start. */
  routingNumber: string;
  /** The name the bank shows on the account: the instructions say "<accountName> FBO <holder>". */
  accountName: string;
  /** First and last account number of the range, as digit strings of one length. */
  accountRange: { first: string; last: string };
  bic?: string;
  paymentRails?: string[];
}

const PROVIDER_ID = /^vab_stm_(\d+)$/;

async function asProvider<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (isConnectionError(error))
      throw new ServiceUnavailableError("bank account register unavailable", { cause: error });
    throw error;
  }
}

export function statementInstructions(
  settings: StatementBankSettings,
  accountNumber: string,
  request: Pick<BankAccountRequest, "beneficiary">,
): BankDepositInstructions {
  return {
    accountType: "CHECKING",
    accountNumber,
    routingNumber: settings.routingNumber,
    // A US domestic account has no IBAN; international senders use the BIC with the account number.
    iban: "",
    bic: settings.bic ?? "",
    bankName: settings.bankName,
    bankAddress: settings.bankAddress,
    beneficiaryName: `${settings.accountName} FBO ${request.beneficiary.name}`,
    beneficiaryAddress: request.beneficiary.address,
    depositMessage: `Account ${accountNumber}`,
    paymentRails: settings.paymentRails ?? ["ACH", "WIRE"],
  };
}

export function createStatementBankingProvider(options: {
  db: Database;
  settings: StatementBankSettings;
}): BankingProvider {
  const { db, settings } = options;
  const first = BigInt(settings.accountRange.first);
  const last = BigInt(settings.accountRange.last);
  const width = settings.accountRange.first.length;
  return {
    name: "statement",
    async openAccount(request) {
      const accountNumber = await asProvider(async () => {
        // Keyed by our virtual account id: a repeated open returns the number it got the first time.
        const existing = await db.query<{ account_number: string }>(
          "SELECT account_number FROM statement_bank_accounts WHERE virtual_account_id = $1",
          [request.virtualAccountId],
        );
        if (existing.rows[0]) return existing.rows[0].account_number;
        const next = await db.query<{ n: string }>("SELECT nextval('statement_bank_account_seq')::text AS n");
        const number = first + BigInt(next.rows[0]?.n ?? "0");
        if (number > last) {
          throw new ServiceUnavailableError(
            "The virtual account number range is used up; the operator must configure a new BANK_ACCOUNT_RANGE",
          );
        }
        const candidate = number.toString().padStart(width, "0");
        await db.query(
          `INSERT INTO statement_bank_accounts (account_number, virtual_account_id) VALUES ($1, $2)
           ON CONFLICT (virtual_account_id) DO NOTHING`,
          [candidate, request.virtualAccountId],
        );
        const stored = await db.query<{ account_number: string }>(
          "SELECT account_number FROM statement_bank_accounts WHERE virtual_account_id = $1",
          [request.virtualAccountId],
        );
        return stored.rows[0]?.account_number ?? candidate;
      });
      return {
        providerAccountId: `vab_stm_${accountNumber}`,
        instructions: statementInstructions(settings, accountNumber, request),
        checkAfterMs: 0,
      };
    },
    async getAccountStatus(providerAccountId) {
      if (!PROVIDER_ID.test(providerAccountId)) throw new NotFoundError("Bank account");
      return { status: "ACTIVE" };
    },
  };
}
