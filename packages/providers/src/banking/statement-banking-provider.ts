import { NotFoundError, ServiceUnavailableError } from "@mp/core";
import { type Database, isConnectionError } from "@mp/db";
import { describeReturnReason } from "./ach-return-reasons.ts";
import type {
  BankAccountRequest,
  BankDepositInstructions,
  BankingProvider,
  BankPayoutStatus,
} from "./banking-provider.ts";

/**
 * Banking by statement import (`BANKING_PROVIDER=statement`), for an operator whose bank gives it a
 * block of account numbers (virtual accounts on a pooled collection account) and a statement file
 * a day, but no API. Opening a virtual account takes the next number of the configured range
 * (never reused: a sequence); the account is active at once, since the bank already routes the
 * whole range to the operator. Money arrives when finance imports the bank's statement
 * (`payments bank import FILE`), matched to the account by its number.
 *
 * Payouts queue in statement_bank_payouts for finance's ISO 20022 pain.001 export (`payments bank
 * payouts export`), which finance uploads to the bank; the next statements confirm them (a debit
 * quoting the payout's end-to-end id) or return them (a credit quoting it). See migrations/0127.
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
const PAYOUT_ID = /^po_stm_([0-9a-f-]{36})$/;

/** A payout's pain.001 EndToEndId: our transfer id's 32 hex digits (the limit is 35 characters). */
export function payoutEndToEndId(payoutId: string): string {
  return payoutId.replaceAll("-", "").toUpperCase();
}

const PAYOUT_STATUS: Record<string, BankPayoutStatus["status"]> = {
  QUEUED: "PENDING",
  EXPORTED: "SENT",
  COMPLETED: "COMPLETED",
  RETURNED: "RETURNED",
  FAILED: "FAILED",
};

interface PayoutRow {
  status: string;
  return_reference: string | null;
  /** The returning line's reason (its RtrInf code), when the bank gave one. */
  return_reason: string | null;
}

function payoutStatus(row: PayoutRow): BankPayoutStatus {
  const status = PAYOUT_STATUS[row.status] ?? "PENDING";
  if (status === "FAILED" || status === "RETURNED") {
    const why = row.return_reason ? `: ${describeReturnReason(row.return_reason)}` : "";
    return { status, reason: `returned by the bank${why} (statement: ${row.return_reference ?? "no reference"})` };
  }
  return { status };
}

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
  async function getPayoutStatus(providerPayoutId: string): Promise<BankPayoutStatus> {
    const id = PAYOUT_ID.exec(providerPayoutId)?.[1];
    if (!id) throw new NotFoundError("Payout");
    const result = await asProvider(() =>
      db.query<PayoutRow>(
        `SELECT p.status, coalesce(l.reference, l.location) AS return_reference, l.return_reason
           FROM statement_bank_payouts p
           LEFT JOIN bank_statement_lines l ON l.id = p.returned_line_id WHERE p.payout_id = $1`,
        [id],
      ),
    );
    const row = result.rows[0];
    if (!row) throw new NotFoundError("Payout");
    return payoutStatus(row);
  }
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
    async sendPayout(request) {
      // Queued once per payout id; the account details stay sealed on the transfer's quote.
      await asProvider(() =>
        db.query(
          `INSERT INTO statement_bank_payouts (payout_id, end_to_end_id, amount, currency, status)
           VALUES ($1, $2, $3, $4, 'QUEUED') ON CONFLICT (payout_id) DO NOTHING`,
          [request.payoutId, payoutEndToEndId(request.payoutId), request.amount, request.currency],
        ),
      );
      const providerPayoutId = `po_stm_${request.payoutId}`;
      return { providerPayoutId, status: await getPayoutStatus(providerPayoutId) };
    },
    getPayoutStatus,
  };
}
