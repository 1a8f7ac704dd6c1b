import { BeneficiaryRequiredError, NotFoundError, USD_DECIMALS, unitsToDecimal } from "@mp/core";
import { type Queryable, recordAudit } from "@mp/db";
import type { EncryptionKeyring, SealedValue } from "@mp/encryption";

/**
 * Travel rule data (issue 29 item 5, docs/transfers.md "Travel rule"): a payout to a crypto address
 * worth the threshold or more (TRAVEL_RULE_THRESHOLD_USD, 3,000 USD unless set; the payout valued as
 * its quote values it) names its beneficiary. The data is sealed on the quote (migration 0210) and
 * opened for operators only, each reading audited.
 */
export const BENEFICIARY_TYPES = ["INDIVIDUAL", "BUSINESS"] as const;

/** A beneficiary as the quote request gives it: a person's name, or a business's name, legal name and country. */
export type Beneficiary =
  | { type: "INDIVIDUAL"; name: string }
  | { type: "BUSINESS"; name: string; legal_name: string; country: string };

/**
 * The beneficiary the quote keeps: at or above the threshold it is required (422
 * beneficiary_required without it); below it nothing is kept, whatever the request gave.
 */
export function travelRuleBeneficiary(input: {
  destinationKind: "CRYPTO_ADDRESS" | "US_BANK_ACCOUNT";
  destinationUsdMicros: bigint;
  thresholdUsdMicros: bigint;
  beneficiary: Beneficiary | undefined;
}): Beneficiary | null {
  if (input.destinationKind !== "CRYPTO_ADDRESS" || input.destinationUsdMicros < input.thresholdUsdMicros) return null;
  if (input.beneficiary === undefined) {
    throw new BeneficiaryRequiredError(
      "destination.beneficiary",
      unitsToDecimal(input.thresholdUsdMicros, USD_DECIMALS, 2),
    );
  }
  return input.beneficiary;
}

/** What an operator sees of a transfer's travel rule data. */
export interface TransferBeneficiaryView {
  transferId: string;
  merchantId: string;
  /** The payout's USD value as quoted; null for quotes made before migration 0210. */
  destinationUsd: string | null;
  /** Null when the payout was below the threshold (nothing was kept). */
  beneficiary: Beneficiary | null;
}

/**
 * Opens transfer `transferId`'s beneficiary for an operator (`actor`: the CLI's --operator or
 * `dashboard:<email>`) and records the reading in operator_audit_log, in `sql`'s transaction when it
 * is one. NotFoundError for an unknown transfer.
 */
export async function openTransferBeneficiary(
  sql: Queryable,
  keyring: EncryptionKeyring,
  transferId: string,
  actor: string,
): Promise<TransferBeneficiaryView> {
  const result = await sql.query<{
    quote_id: string;
    merchant_id: string;
    usd: string | null;
    ciphertext: Buffer | null;
    key_id: string | null;
  }>(
    `SELECT q.id AS quote_id, t.merchant_id, q.destination_usd_micros::text AS usd,
            q.beneficiary_ciphertext AS ciphertext, q.beneficiary_key_id AS key_id
       FROM transfers t JOIN transfer_quotes q ON q.id = t.quote_id
      WHERE t.id = $1`,
    [transferId],
  );
  const row = result.rows[0];
  if (!row) throw new NotFoundError("Transfer");
  const sealed: SealedValue | null =
    row.ciphertext && row.key_id ? { keyId: row.key_id, ciphertext: row.ciphertext } : null;
  const beneficiary = sealed ? (keyring.openJson(sealed, row.quote_id) as Beneficiary) : null;
  if (beneficiary) {
    await recordAudit(sql, {
      actor,
      action: "transfer.beneficiary_viewed",
      objectType: "transfer",
      objectId: transferId,
      details: { merchant_id: row.merchant_id },
    });
  }
  return {
    transferId,
    merchantId: row.merchant_id,
    destinationUsd: row.usd === null ? null : unitsToDecimal(BigInt(row.usd), USD_DECIMALS, 2),
    beneficiary,
  };
}

/** The view's JSON form (CLI --json and the operator dashboard). */
export function transferBeneficiaryJson(view: TransferBeneficiaryView) {
  return {
    transfer_id: view.transferId,
    merchant_id: view.merchantId,
    destination_usd: view.destinationUsd,
    beneficiary: view.beneficiary,
  };
}
