import { USD_DECIMALS, unitsToDecimal } from "@mp/core";
import type { Queryable } from "@mp/db";
import type { EncryptionKeyring } from "@mp/encryption";
import { type BankPayoutRequest, isValidAbaRoutingNumber, type StatementPayer } from "@mp/providers";

/**
 * The payout that sends a bank return to its payer: the account an operator gave it (sealed on the
 * return, its id as associated data), else the one its statement line names (sealed on the line,
 * the line's id as associated data), keyed by the return's current payout key (its id, a new one
 * for each re-send after the bank refused it). Payouts go to US accounts (an account number and an
 * ABA routing number, pain001.ts): a payer whose bank gives no routing number (an IBAN with a BIC
 * only) is `refused` with the reason, and the return stays payable.
 */
export type BankReturnPayout = { request: BankPayoutRequest } | { refused: string };

/** The payer's account sealed on a statement line (importBankStatement), for the line's id. */
export function sealStatementPayer(keyring: EncryptionKeyring, lineId: string, payer: StatementPayer) {
  return keyring.sealJson(payer, lineId);
}

/** The account an operator gives a bank return (`payments bank return-send`), sealed for the return's id. */
export function sealReturnDestination(keyring: EncryptionKeyring, returnId: string, payer: StatementPayer) {
  return keyring.sealJson(payer, returnId);
}

/** Undefined when `payoutId` is not a bank return's payout key (it is a transfer's payout). */
export async function bankReturnPayout(
  sql: Queryable,
  keyring: EncryptionKeyring,
  payoutId: string,
): Promise<BankReturnPayout | undefined> {
  const { rows } = await sql.query<{
    id: string;
    owed: string;
    /** When the return was first asked of the bank: the same on every retry (the sandbox times it). */
    requested_at: Date | null;
    line_id: string | null;
    ciphertext: Buffer | null;
    key_id: string | null;
    reference: string | null;
    bank_reference: string | null;
    destination: Buffer | null;
    destination_key_id: string | null;
  }>(
    `SELECT r.id, r.owed_usd_micros::text AS owed, r.requested_at, l.id AS line_id, l.payer_ciphertext AS ciphertext,
            l.payer_key_id AS key_id, l.reference, l.bank_reference, r.destination_ciphertext AS destination,
            r.destination_key_id
       FROM bank_returns r LEFT JOIN bank_statement_lines l ON l.id = r.statement_line_id
      WHERE r.payout_key = $1`,
    [payoutId],
  );
  const row = rows[0];
  if (!row) return undefined;
  if (!row.requested_at) return { refused: "the return is not requested of the bank" };
  let payer: StatementPayer;
  if (row.destination && row.destination_key_id) {
    payer = keyring.openJson({ keyId: row.destination_key_id, ciphertext: row.destination }, row.id) as StatementPayer;
  } else if (row.line_id && row.ciphertext && row.key_id) {
    payer = keyring.openJson({ keyId: row.key_id, ciphertext: row.ciphertext }, row.line_id) as StatementPayer;
  } else {
    return { refused: "no payer account on the statement line" };
  }
  if (!payer.routingNumber || !isValidAbaRoutingNumber(payer.routingNumber)) {
    return {
      refused: `the payer's bank gives no ABA routing number (account ${payer.accountScheme}${payer.bic ? `, BIC ${payer.bic}` : ""}): bank payouts go to US accounts; send it back by hand`,
    };
  }
  return {
    request: {
      payoutId,
      amount: unitsToDecimal(BigInt(row.owed), USD_DECIMALS, 2),
      currency: "USD",
      requestedAt: row.requested_at,
      creditor: {
        name: payer.name ?? "PAYER",
        accountNumber: payer.account,
        routingNumber: payer.routingNumber,
        accountType: "CHECKING",
      },
      remittance: `Return of your payment ${row.reference ?? row.bank_reference ?? ""}`.trim(),
    },
  };
}
