import { ConflictError, NotFoundError, ValidationError } from "@mp/core";
import { type Database, type Queryable, recordAudit } from "@mp/db";
import type { EncryptionKeyring } from "@mp/encryption";
import { postBankReturnClosed } from "@mp/ledger";
import { isValidAbaRoutingNumber } from "@mp/providers";
import { BANK_PAYMENT_SENT_BACK_NOTE, bankSentBackFlag } from "./bank-return-notes.ts";
import { sealReturnDestination } from "./bank-return-payout.ts";
import { type BankReturn, type BankReturnState, bankReturnById } from "./bank-return-store.ts";

/**
 * What an operator does with a bank return that is stuck (docs/returns.md "Bank returns", `payments
 * bank return-send` and `bank return-close`): only a `payable` or `failed` one, nothing being asked
 * of the bank. Each in one transaction under the return's row lock (the worker's pass records an
 * answer under the same lock, and drops one about a payout key that is no longer the return's),
 * audited in operator_audit_log (object_type `bank_return`).
 */
interface LockedReturn {
  id: string;
  state: BankReturnState;
  origin: string;
  owed: string;
  line_id: string | null;
  merchant_id: string | null;
  transfer_id: string | null;
  bank_deposit_id: string | null;
  /** An account is known: one an operator gave, or the one its statement line names. */
  account_known: boolean;
}

async function lockStuckReturn(sql: Queryable, id: string, action: string): Promise<LockedReturn> {
  const { rows } = await sql.query<LockedReturn>(
    `SELECT r.id, r.state, r.origin, r.owed_usd_micros::text AS owed, r.statement_line_id AS line_id, r.merchant_id,
            r.transfer_id, r.bank_deposit_id,
            (r.destination_ciphertext IS NOT NULL OR l.payer_ciphertext IS NOT NULL) AS account_known
       FROM bank_returns r LEFT JOIN bank_statement_lines l ON l.id = r.statement_line_id
      WHERE r.id = $1 FOR UPDATE OF r`,
    [id],
  );
  const row = rows[0];
  if (!row) throw new NotFoundError("Bank return");
  if (row.state !== "payable" && row.state !== "failed") {
    throw new ConflictError(`Bank return ${id} is ${row.state}: only a payable or failed one can be ${action}`);
  }
  return row;
}

async function readReturn(sql: Queryable, id: string): Promise<BankReturn> {
  const found = await bankReturnById(sql, id);
  if (!found) throw new NotFoundError("Bank return");
  return found;
}

/** The payer's US account an operator gives a bank return. */
export interface ReturnAccount {
  name: string;
  accountNumber: string;
  routingNumber: string;
}

/**
 * `payments bank return-send`: a payable or failed bank return is asked of the bank (again): to
 * `account` when given (sealed on the return, its id as associated data; it replaces the account
 * its statement line names), else to the account already known. A failed one gets a new payout
 * key (the bank answers its old key with the payout it refused); a payable one was never asked of
 * the bank and keeps its key. The worker's next pass sends it.
 */
export async function sendBankReturnAgain(
  db: Database,
  keyring: EncryptionKeyring,
  input: { returnId: string; operator: string; account?: ReturnAccount | undefined },
): Promise<BankReturn> {
  const { account } = input;
  if (account) {
    if (!/^[0-9]{4,17}$/.test(account.accountNumber)) {
      throw new ValidationError("a US account number is 4 to 17 digits", "account");
    }
    if (!isValidAbaRoutingNumber(account.routingNumber)) {
      throw new ValidationError("not an ABA routing number (9 digits, valid checksum)", "routing");
    }
    if (account.name.trim().length === 0) throw new ValidationError("the account holder's name is empty", "name");
  }
  return db.tx(async (sql) => {
    const row = await lockStuckReturn(sql, input.returnId, "sent");
    if (!account && !row.account_known) {
      throw new ValidationError("the return names no payer account: give --account, --routing and --name", "account");
    }
    const sealed =
      account &&
      sealReturnDestination(keyring, row.id, {
        name: account.name.trim(),
        account: account.accountNumber,
        accountScheme: "OTHER",
        bic: null,
        routingNumber: account.routingNumber,
      });
    await sql.query(
      `UPDATE bank_returns SET state = 'sending', reason = NULL, requested_at = now(), next_check_at = now(),
              provider_payout_id = NULL, updated_at = now(),
              payout_key = CASE WHEN state = 'failed' THEN gen_random_uuid() ELSE payout_key END,
              destination_ciphertext = coalesce($2, destination_ciphertext),
              destination_key_id = coalesce($3, destination_key_id)
        WHERE id = $1`,
      [row.id, sealed?.ciphertext ?? null, sealed?.keyId ?? null],
    );
    await recordAudit(sql, {
      actor: input.operator,
      action: "bank.return_sent",
      objectType: "bank_return",
      objectId: row.id,
      details: { from: row.state, account_given: Boolean(account) },
    });
    return readReturn(sql, row.id);
  });
}

/**
 * A closed policy return's money is the merchant's again: the words the take-back wrote on the
 * failed transfer's reason, or on its intent's flag (take-back-bank-credits.ts, noteBankReturn),
 * would still say it was sent back, so they are replaced by what happened.
 */
async function noteClosedPolicyReturn(sql: Queryable, row: LockedReturn, reason: string): Promise<void> {
  if (!row.transfer_id) return;
  if (row.origin === "failed_payout") {
    await sql.query(`UPDATE transfers SET failure_reason = left(replace(failure_reason, $2, $3), 500) WHERE id = $1`, [
      row.transfer_id,
      BANK_PAYMENT_SENT_BACK_NOTE,
      `; the customer's bank payment could not be sent back to its payer by bank: it is in the merchant's available balance (bank return closed: ${reason})`,
    ]);
    return;
  }
  await sql.query(
    `UPDATE funding_intents SET flag_message = left(replace(flag_message, $2, $3), 500)
      WHERE transfer_id = $1 AND flag_code IN ('LATE_PAYMENT', 'AMOUNT_MISMATCH')`,
    [
      row.transfer_id,
      bankSentBackFlag(row.bank_deposit_id ?? ""),
      `added to the merchant's available balance: its return by bank was closed (bank deposit ${row.bank_deposit_id}: ${reason})`,
    ],
  );
}

/**
 * `payments bank return-close`: a payable or failed bank return is given up (the payer cannot be
 * paid by bank; finance settles it otherwise). A suspense line's return: the line is unmatched
 * again, its money still in bank_suspense (finance assigns or returns it once more). A policy
 * return: what it took back is the merchant's again (`bank_return_closed`, returns_payable ->
 * merchant_available). Its state is `closed`, with the reason.
 */
export async function closeBankReturn(
  db: Database,
  input: { returnId: string; operator: string; reason: string },
): Promise<BankReturn> {
  const reason = input.reason.trim();
  if (reason.length === 0) throw new ValidationError("closing a bank return needs a --reason", "reason");
  return db.tx(async (sql) => {
    const row = await lockStuckReturn(sql, input.returnId, "closed");
    let entryId: string | null = null;
    if (row.origin === "suspense") {
      await sql.query(
        `UPDATE bank_statement_lines SET status = 'UNMATCHED', reason = $2, resolved_by = NULL, resolved_at = NULL
          WHERE id = $1 AND status = 'RETURNED'`,
        [row.line_id, `its bank return was closed: ${reason}`],
      );
    } else {
      if (!row.merchant_id) throw new ConflictError(`Bank return ${row.id} has no merchant`);
      ({ entryId } = await postBankReturnClosed(sql, {
        returnId: row.id,
        merchantId: row.merchant_id,
        owedUsdMicros: BigInt(row.owed),
      }));
      await noteClosedPolicyReturn(sql, row, reason);
    }
    await sql.query(
      `UPDATE bank_returns SET state = 'closed', reason = $2, closed_at = now(), closed_entry_id = $3, updated_at = now()
        WHERE id = $1`,
      [row.id, reason, entryId],
    );
    await recordAudit(sql, {
      actor: input.operator,
      action: "bank.return_closed",
      objectType: "bank_return",
      objectId: row.id,
      details: { from: row.state, reason },
    });
    return readReturn(sql, row.id);
  });
}
