import { createHash } from "node:crypto";
import { ValidationError } from "@mp/core";

/**
 * One booked movement of a bank statement, whatever the file's format (camt.053 or CSV). Amounts
 * stay decimal strings exactly as the bank wrote them; the importer converts them to micro-dollars.
 */
export interface StatementLine {
  /** Where in the file, for error messages and the unmatched list: `Stmt[1]/Ntry[3]/TxDtls[2]`, `line 7`. */
  location: string;
  /** The account credited: the virtual account number (CdtrAcct), else the statement's account. */
  account: string;
  direction: "CREDIT" | "DEBIT";
  /** A bank's reversal of an earlier movement (camt `RvslInd`): never credited automatically. */
  reversal: boolean;
  /** Positive decimal string, as in the file. */
  amount: string;
  /** ISO 4217 code. */
  currency: string;
  /** YYYY-MM-DD. */
  bookingDate: string;
  /** The bank's own references (AcctSvcrRef, NtryRef, UETR...), joined: part of the line's identity. */
  bankReference: string;
  /** What the payer quoted (EndToEndId, structured creditor reference, remittance text). */
  reference: string | null;
  counterparty: string | null;
  /**
   * Who paid a credit line, as far as the bank names them (camt `RltdPties/DbtrAcct`, `Dbtr` and
   * `RltdAgts/DbtrAgt`; the CSV's counterparty_* columns): where a bank return pays the money back.
   * Null when the line names no payer account (and for debits). Not part of the identity.
   */
  payer: StatementPayer | null;
  /**
   * The end-to-end id the line carries (camt `Refs/EndToEndId`), kept apart from `reference`, which
   * prefers a structured creditor reference: a returned payout quotes our end-to-end id here. Null
   * when absent (or `NOTPROVIDED`). Not part of the identity.
   */
  endToEndId?: string | null;
  /**
   * Why the bank returned the money the line moves back (camt `RtrInf/Rsn/Cd` or `/Prtry`, e.g. an
   * ACH code `R03` or an ISO code `AC04`, then `RtrInf/AddtlInf`; the CSV's `return_reason` column).
   * Null on a line that is no return. Not part of the identity.
   */
  returnReason?: string | null;
  /**
   * The line's identity across files: the same booking in two overlapping statements has the same
   * one, so a re-import credits nothing twice. A hash of the account, amount, currency, booking
   * date, the bank's references and the line's position inside its entry (a batch's TxDtls).
   */
  identity: string;
}

/** The account a credit came from (secret at rest: the importer seals it on the line). */
export interface StatementPayer {
  name: string | null;
  /** IBAN, or the account's other id (a US account number). */
  account: string;
  accountScheme: "IBAN" | "OTHER";
  /** The payer's bank: its BIC, and its clearing member id (a US ABA routing number) when given. */
  bic: string | null;
  routingNumber: string | null;
}

export type StatementFormat = "camt053" | "csv";

/** A statement file that fails validation: names the element or line at fault; nothing is imported. */
export class StatementFormatError extends ValidationError {
  constructor(location: string, message: string) {
    super(`bank statement invalid at ${location}: ${message}`, "file");
  }
}

const AMOUNT = /^\d{1,18}(\.\d{1,5})?$/;
const DATE = /^\d{4}-\d{2}-\d{2}/;
const CURRENCY = /^[A-Z]{3}$/;

/** Validates the fields every format shares and computes the identity. */
export function statementLine(
  location: string,
  fields: Omit<StatementLine, "location" | "identity">,
  positionInEntry: string,
): StatementLine {
  if (!AMOUNT.test(fields.amount))
    throw new StatementFormatError(location, `amount "${fields.amount}" is not a positive decimal`);
  if (!CURRENCY.test(fields.currency))
    throw new StatementFormatError(location, `currency "${fields.currency}" is not an ISO 4217 code`);
  if (!DATE.test(fields.bookingDate))
    throw new StatementFormatError(location, `booking date "${fields.bookingDate}" is not a date`);
  if (fields.account.length === 0) throw new StatementFormatError(location, "no account");
  const bookingDate = fields.bookingDate.slice(0, 10);
  const identity = createHash("sha256")
    .update(
      JSON.stringify([
        fields.account,
        fields.direction,
        fields.reversal,
        fields.amount,
        fields.currency,
        bookingDate,
        fields.bankReference,
        positionInEntry,
      ]),
    )
    .digest("hex");
  return { ...fields, bookingDate, location, identity };
}
