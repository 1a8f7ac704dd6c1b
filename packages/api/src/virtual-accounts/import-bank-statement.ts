import { createHash, randomUUID } from "node:crypto";
import { ConflictError, decimalToUnits, NotFoundError, ValidationError } from "@mp/core";
import { type Database, type Queryable, recordAudit } from "@mp/db";
import type { EncryptionKeyring } from "@mp/encryption";
import { postBankSuspense, releaseBankSuspense } from "@mp/ledger";
import { detectStatementFormat, parseStatement, type StatementFormat, type StatementLine } from "@mp/providers";
import {
  applyPayoutLine,
  type BankReturn,
  bankReturnOfLine,
  CENT_MICROS,
  matchPayoutLine,
  openBankReturn,
  sealStatementPayer,
} from "@mp/transfers";
import { creditBankDeposit } from "./credit-bank-deposit.ts";
import { findLiveVirtualAccount } from "./virtual-account-store.ts";

/**
 * Finance's statement import (`payments bank import FILE`, BANKING_PROVIDER=statement).
 *
 * The whole file is parsed and validated before anything is written: a file with one bad line is
 * refused whole, naming the line or element. Then, in one transaction, every line is recorded once
 * by its identity (the same booking in an overlapping statement is recognised and skipped), and
 * each new credit line is matched to a virtual account by its number and credited through the
 * same path as every bank deposit (one balanced ledger entry). What cannot be matched is kept as
 * UNMATCHED with the reason, for finance to assign to an account or return to the payer.
 *
 * A line quoting the end-to-end id of one of our exported payouts is about that payout instead
 * (transfers/statement-payouts.ts): a debit of its amount confirms it, a credit returns it; the line
 * is RECORDED and credits no account.
 */
export interface StatementImportResult {
  importId: string;
  format: StatementFormat;
  lines: number;
  credited: number;
  unmatched: number;
  alreadyImported: number;
  /** Payouts this file confirmed (debits) and returned (credits back). */
  payoutsCompleted: number;
  payoutsReturned: number;
}

/** An import's result as `payments bank import` prints it and the dashboard answers it. */
export function statementImportJson(result: StatementImportResult) {
  return {
    import_id: result.importId,
    format: result.format,
    lines: result.lines,
    credited: result.credited,
    unmatched: result.unmatched,
    already_imported: result.alreadyImported,
    payouts_completed: result.payoutsCompleted,
    payouts_returned: result.payoutsReturned,
  };
}

/** A statement line as recorded: the parsed line (less its identity hash) and what became of it. */
export interface StoredStatementLine extends Omit<StatementLine, "identity"> {
  id: string;
  status: "CREDITED" | "UNMATCHED" | "ASSIGNED" | "RETURNED" | "RECORDED";
  reason: string | null;
  virtualAccountId: string | null;
  bankDepositId: string | null;
}

interface TargetAccount {
  id: string;
  merchantId: string;
  status: string;
}

async function accountByNumber(sql: Queryable, accountNumber: string): Promise<TargetAccount | undefined> {
  const result = await sql.query<{ id: string; merchant_id: string; status: string }>(
    `SELECT va.id, va.merchant_id, va.status FROM statement_bank_accounts s
     JOIN virtual_accounts va ON va.id = s.virtual_account_id WHERE s.account_number = $1`,
    [accountNumber],
  );
  const row = result.rows[0];
  return row ? { id: row.id, merchantId: row.merchant_id, status: row.status } : undefined;
}

/** Why a new line is not credited automatically, or undefined when it can be (with its account). */
async function match(sql: Queryable, line: StatementLine): Promise<{ account?: TargetAccount; reason?: string }> {
  if (line.direction === "DEBIT" && !line.reversal) return {};
  if (line.reversal) {
    return {
      reason:
        line.direction === "DEBIT"
          ? "the bank reversed an earlier credit: resolve by hand"
          : "the bank reversed an earlier debit: resolve by hand",
    };
  }
  if (line.currency !== "USD") return { reason: `currency ${line.currency}: virtual accounts hold USD` };
  const account = await accountByNumber(sql, line.account);
  if (!account) return { reason: `no virtual account has the number ${line.account}` };
  if (account.status !== "ACTIVE") return { reason: `virtual account ${account.id} is ${account.status}` };
  return { account };
}

export async function importBankStatement(
  db: Database,
  input: {
    fileName: string;
    content: string;
    format?: StatementFormat;
    operator: string;
    /** Seals each credit's payer account on its line (where a bank return pays back); without it none is kept. */
    keyring?: EncryptionKeyring | undefined;
  },
): Promise<StatementImportResult> {
  const format = input.format ?? detectStatementFormat(input.content);
  const lines = parseStatement(input.content, format);
  const importId = randomUUID();
  return db.tx(async (sql) => {
    const counts = { credited: 0, unmatched: 0, alreadyImported: 0, payoutsCompleted: 0, payoutsReturned: 0 };
    await sql.query(
      `INSERT INTO bank_statement_imports
         (id, file_name, file_sha256, format, lines, credited, unmatched, already_imported, imported_by)
       VALUES ($1, $2, $3, $4, $5, 0, 0, 0, $6)`,
      [
        importId,
        input.fileName,
        createHash("sha256").update(input.content).digest("hex"),
        format,
        lines.length,
        input.operator,
      ],
    );
    for (const line of lines) {
      const payout = await matchPayoutLine(sql, line);
      const { account, reason } = payout ? { account: undefined, reason: payout.reason } : await match(sql, line);
      const lineId = randomUUID();
      const payer = line.payer && input.keyring ? sealStatementPayer(input.keyring, lineId, line.payer) : null;
      const inserted = await sql.query<{ id: string }>(
        `INSERT INTO bank_statement_lines
           (id, identity, import_id, location, account, direction, reversal, amount, currency, booking_date,
            bank_reference, reference, counterparty, status, reason, payer_ciphertext, payer_key_id, return_reason)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18)
         ON CONFLICT (identity) DO NOTHING RETURNING id`,
        [
          lineId,
          line.identity,
          importId,
          line.location,
          line.account,
          line.direction,
          line.reversal,
          line.amount,
          line.currency,
          line.bookingDate,
          line.bankReference,
          line.reference,
          line.counterparty,
          reason ? "UNMATCHED" : "RECORDED",
          reason ?? null,
          payer?.ciphertext ?? null,
          payer?.keyId ?? null,
          line.returnReason ?? null,
        ],
      );
      if (!inserted.rows[0]) {
        counts.alreadyImported += 1;
        continue;
      }
      if (reason) {
        counts.unmatched += 1;
        await intoSuspense(sql, lineId, line);
      }
      if (payout?.outcome) {
        await applyPayoutLine(sql, lineId, payout);
        if (payout.outcome === "COMPLETED") counts.payoutsCompleted += 1;
        else counts.payoutsReturned += 1;
      }
      if (!account) continue;
      await creditLine(sql, lineId, account, line, "CREDITED");
      counts.credited += 1;
    }
    await sql.query(
      "UPDATE bank_statement_imports SET credited = $2, unmatched = $3, already_imported = $4 WHERE id = $1",
      [importId, counts.credited, counts.unmatched, counts.alreadyImported],
    );
    return { importId, format, lines: lines.length, ...counts };
  });
}

/**
 * An unmatched USD credit is money at the bank that is nobody's yet: posted to bank_suspense until
 * finance assigns or returns it (@mp/ledger bank-suspense.ts). Debits, reversals and other
 * currencies (the ledger is in USD) stay out of the ledger, as before.
 */
async function intoSuspense(sql: Queryable, lineId: string, line: StatementLine): Promise<void> {
  if (line.direction !== "CREDIT" || line.reversal || line.currency !== "USD") return;
  const amountUsdMicros = decimalToUnits(line.amount, 6);
  if (amountUsdMicros === null || amountUsdMicros <= 0n) return;
  await postBankSuspense(sql, { lineId, amountUsdMicros });
}

async function creditLine(
  sql: Queryable,
  lineId: string,
  account: TargetAccount,
  line: Pick<StatementLine, "amount" | "reference">,
  status: "CREDITED" | "ASSIGNED",
): Promise<void> {
  const deposit = await creditBankDeposit(sql, {
    merchantId: account.merchantId,
    virtualAccountId: account.id,
    amount: line.amount,
    reference: line.reference,
  });
  await sql.query(
    `UPDATE bank_statement_lines SET status = $2, reason = NULL, virtual_account_id = $3, bank_deposit_id = $4
     WHERE id = $1`,
    [lineId, status, account.id, deposit.id],
  );
}

/** The columns as a StoredStatementLine's fields: the query's answer is the line, with no row type to map. */
const LINE_COLUMNS = `id, location, account, direction, reversal, amount, currency,
  to_char(booking_date, 'YYYY-MM-DD') AS "bookingDate", bank_reference AS "bankReference", reference, counterparty,
  status, reason, virtual_account_id AS "virtualAccountId", bank_deposit_id AS "bankDepositId"`;

export interface StatementImport {
  id: string;
  fileName: string;
  format: StatementFormat;
  lines: number;
  credited: number;
  unmatched: number;
  alreadyImported: number;
  importedBy: string;
  importedAt: Date;
}

/** The newest statement imports first: what each file brought (the bank side of the reconciliation). */
export async function listStatementImports(db: Queryable, limit = 20): Promise<StatementImport[]> {
  const result = await db.query<StatementImport>(
    `SELECT id, file_name AS "fileName", format, lines, credited, unmatched, already_imported AS "alreadyImported",
            imported_by AS "importedBy", imported_at AS "importedAt"
       FROM bank_statement_imports ORDER BY imported_at DESC, id LIMIT $1`,
    [limit],
  );
  return result.rows;
}

/** Lines waiting for finance (`payments bank unmatched`), oldest first. */
export async function listUnmatchedStatementLines(db: Queryable): Promise<StoredStatementLine[]> {
  const result = await db.query<StoredStatementLine>(
    `SELECT ${LINE_COLUMNS} FROM bank_statement_lines WHERE status = 'UNMATCHED' ORDER BY created_at, location`,
  );
  return result.rows;
}

async function lockUnmatched(sql: Queryable, lineId: string): Promise<StoredStatementLine> {
  const result = await sql.query<StoredStatementLine>(
    `SELECT ${LINE_COLUMNS} FROM bank_statement_lines WHERE id = $1 FOR UPDATE`,
    [lineId],
  );
  const row = result.rows[0];
  if (!row) throw new NotFoundError("Statement line");
  if (row.status !== "UNMATCHED") throw new ConflictError(`Statement line ${lineId} is ${row.status}, not UNMATCHED`);
  return row;
}

/**
 * Finance credits an unmatched USD credit line to the virtual account it was meant for, or to a
 * transfer's BANK_TRANSFER funding intent (its customer's account, credited under the intent's
 * reference, so it funds the transfer as a credit quoting the reference would).
 */
export async function assignStatementLine(
  db: Database,
  input: { lineId: string; operator: string } & ({ virtualAccountId: string } | { intentId: string }),
): Promise<StoredStatementLine> {
  return db.tx(async (sql) => {
    const line = await lockUnmatched(sql, input.lineId);
    if (line.direction !== "CREDIT" || line.reversal) {
      throw new ValidationError("only a credit line can be assigned to an account", "line");
    }
    if (line.currency !== "USD") {
      throw new ValidationError(`a ${line.currency} line cannot be credited to a USD account; return it`, "line");
    }
    const { account, reference } =
      "intentId" in input
        ? await intentTarget(sql, input.intentId)
        : { account: await accountTarget(sql, input.virtualAccountId), reference: line.reference };
    // Out of suspense, then credited as any bank deposit (bank_clearing -> the merchant); one naming
    // a transfer's intent funds it as a credit quoting its reference would.
    await releaseBankSuspense(sql, line.id);
    await creditLine(sql, line.id, account, { amount: line.amount, reference }, "ASSIGNED");
    await sql.query("UPDATE bank_statement_lines SET resolved_by = $2, resolved_at = now() WHERE id = $1", [
      line.id,
      input.operator,
    ]);
    await recordAudit(sql, {
      actor: input.operator,
      action: "bank.assign",
      objectType: "bank_statement_line",
      objectId: line.id,
      details: {
        virtual_account_id: account.id,
        ...("intentId" in input ? { intent_id: input.intentId } : {}),
      },
    });
    return { ...line, status: "ASSIGNED", reason: null, virtualAccountId: account.id };
  });
}

async function accountTarget(sql: Queryable, virtualAccountId: string): Promise<TargetAccount> {
  const target = await sql.query<{ id: string; merchant_id: string; status: string }>(
    "SELECT id, merchant_id, status FROM virtual_accounts WHERE id = $1",
    [virtualAccountId],
  );
  const row = target.rows[0];
  if (!row) throw new NotFoundError("Virtual account");
  return { id: row.id, merchantId: row.merchant_id, status: row.status };
}

/**
 * A transfer's BANK_TRANSFER funding intent: its customer's USD virtual account (where the intent's
 * instructions tell the customer to pay) and the intent's reference, so the credit funds it.
 */
async function intentTarget(sql: Queryable, intentId: string): Promise<{ account: TargetAccount; reference: string }> {
  const found = await sql.query<{ method: string; reference: string; customer_id: string; merchant_id: string }>(
    `SELECT i.method, i.reference, t.customer_id, t.merchant_id
       FROM funding_intents i JOIN transfers t ON t.id = i.transfer_id WHERE i.id = $1`,
    [intentId],
  );
  const intent = found.rows[0];
  if (!intent) throw new NotFoundError("Funding intent");
  if (intent.method !== "BANK_TRANSFER") {
    throw new ValidationError(
      `the intent is funded by ${intent.method}, not by bank; assign the line elsewhere`,
      "intent",
    );
  }
  const account = await findLiveVirtualAccount(sql, intent.customer_id, "USD");
  if (!account) throw new ConflictError("the intent's customer has no USD virtual account to credit");
  return {
    account: { id: account.id, merchantId: intent.merchant_id, status: account.status },
    reference: intent.reference,
  };
}

/**
 * Finance sends an unmatched line back to the payer and records why. A USD credit of whole cents
 * becomes a bank return (bank-returns/ of @mp/transfers: the worker pays it through the banking
 * provider to the payer's account the line names); its money stays in bank_suspense until the bank
 * paid it. Any other line (a debit, a reversal, another currency) is sent back outside the service:
 * it leaves suspense at once, as before bank returns existed.
 */
export async function returnStatementLine(
  db: Database,
  input: { lineId: string; reason: string; operator: string },
): Promise<StoredStatementLine & { bankReturn: BankReturn | null }> {
  const reason = input.reason.trim();
  if (reason.length === 0) throw new ValidationError("a return needs a --reason", "reason");
  return db.tx(async (sql) => {
    const line = await lockUnmatched(sql, input.lineId);
    const micros = decimalToUnits(line.amount, 6);
    const byBank =
      line.direction === "CREDIT" &&
      !line.reversal &&
      line.currency === "USD" &&
      micros !== null &&
      micros > 0n &&
      micros % CENT_MICROS === 0n;
    const bankReturn = byBank
      ? ((await openBankReturn(sql, { origin: "suspense", owedUsdMicros: micros, statementLineId: line.id })) ??
        (await bankReturnOfLine(sql, line.id)) ??
        null)
      : null;
    // Sent back outside the service: out of suspense, off the bank's balance, now.
    if (!byBank) await releaseBankSuspense(sql, line.id);
    await sql.query(
      "UPDATE bank_statement_lines SET status = 'RETURNED', reason = $2, resolved_by = $3, resolved_at = now() WHERE id = $1",
      [line.id, reason, input.operator],
    );
    await recordAudit(sql, {
      actor: input.operator,
      action: "bank.return",
      objectType: "bank_statement_line",
      objectId: line.id,
      details: { reason, bank_return_id: bankReturn?.id ?? null },
    });
    return { ...line, status: "RETURNED", reason, bankReturn };
  });
}
