import { ConflictError, NotFoundError } from "@mp/core";
import { insertReturning, type Queryable } from "@mp/db";
import type { EncryptionKeyring } from "@mp/encryption";
import { appendEvent } from "@mp/events";
import { type BankMask, type Beneficiary, bankMaskOf, type UsBankAccount } from "@mp/transfers";
import type { LiquidationAddressStatus } from "./statuses.ts";

export const LIQUIDATION_ADDRESS_COLUMNS = `id, merchant_id, customer_id, wallet_id, destination_id, chain, asset, decimals,
  address, destination_kind, destination_asset, destination_network, destination_decimals, destination_address,
  destination_bank_ciphertext, destination_bank_key_id, destination_bank_mask, beneficiary_ciphertext,
  beneficiary_key_id, return_address, reference, status, disabled_at, created_at, updated_at`;

export interface LiquidationAddressRow {
  id: string;
  merchant_id: string;
  customer_id: string;
  wallet_id: string;
  destination_id: string;
  chain: string;
  asset: string;
  decimals: number;
  address: string;
  destination_kind: "CRYPTO_ADDRESS" | "US_BANK_ACCOUNT";
  destination_asset: string;
  destination_network: string;
  destination_decimals: number;
  destination_address: string | null;
  destination_bank_ciphertext: Buffer | null;
  destination_bank_key_id: string | null;
  destination_bank_mask: string | null;
  beneficiary_ciphertext: Buffer | null;
  beneficiary_key_id: string | null;
  return_address: string | null;
  reference: string | null;
  status: LiquidationAddressStatus;
  disabled_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

export interface LiquidationAddressResource {
  id: string;
  customer_id: string;
  network: string;
  asset: string;
  address: string;
  destination: {
    type: "CRYPTO_ADDRESS" | "US_BANK_ACCOUNT";
    asset: string;
    network: string;
    address: string | null;
    bank_account: BankMask | null;
    /** Travel rule data given at creation, sealed (operators only); each drain's payout carries it. */
    beneficiary_on_file: boolean;
  };
  return_address: string | null;
  reference: string | null;
  status: LiquidationAddressStatus;
  disabled_at: string | null;
  created_at: string;
  updated_at: string;
}

const iso = (d: Date | null): string | null => (d === null ? null : new Date(d).toISOString());

export function toLiquidationAddressResource(row: LiquidationAddressRow): LiquidationAddressResource {
  return {
    id: row.id,
    customer_id: row.customer_id,
    network: row.chain,
    asset: row.asset,
    address: row.address,
    destination: {
      type: row.destination_kind,
      asset: row.destination_asset,
      network: row.destination_network,
      address: row.destination_address,
      bank_account: row.destination_bank_mask === null ? null : (JSON.parse(row.destination_bank_mask) as BankMask),
      beneficiary_on_file: row.beneficiary_ciphertext !== null,
    },
    return_address: row.return_address,
    reference: row.reference,
    status: row.status,
    disabled_at: iso(row.disabled_at),
    created_at: iso(row.created_at) as string,
    updated_at: iso(row.updated_at) as string,
  };
}

export interface NewLiquidationAddress {
  id: string;
  merchantId: string;
  customerId: string;
  /** The address's own wallet (purpose LIQUIDATION), made in the same transaction, and its address on `chain`. */
  walletId: string;
  destinationId: string;
  chain: string;
  asset: string;
  decimals: number;
  address: string;
  destination: {
    kind: "CRYPTO_ADDRESS" | "US_BANK_ACCOUNT";
    asset: string;
    network: string;
    decimals: number;
    address: string | null;
    bankAccount: UsBankAccount | null;
    /** CRYPTO_ADDRESS only: sealed, carried to every drain's quote at or above the travel rule threshold. */
    beneficiary: Beneficiary | null;
  };
  returnAddress: string | null;
  reference: string | null;
  idempotencyKey?: string | undefined;
}

/** Runs the INSERT or UPDATE ... RETURNING the address, and appends its event: the address as answered. */
async function writeAndAnnounce(
  sql: Queryable,
  write: { text: string; params: unknown[] },
  event: {
    type: "liquidation_address.created" | "liquidation_address.disabled";
    merchantId: string;
    idempotencyKey?: string | undefined;
  },
): Promise<LiquidationAddressResource> {
  const resource = toLiquidationAddressResource(
    await insertReturning<LiquidationAddressRow>(sql, write.text, write.params),
  );
  await appendEvent(sql, {
    merchantId: event.merchantId,
    type: event.type,
    objectType: "liquidation_address",
    objectId: resource.id,
    data: resource,
    idempotencyKey: event.idempotencyKey ?? null,
  });
  return resource;
}

/**
 * Inserts the address and its `liquidation_address.created` event in the caller's transaction. A bank
 * destination's full details are sealed, bound to the address's id; only their mask is readable.
 */
export async function insertLiquidationAddress(
  sql: Queryable,
  keyring: EncryptionKeyring,
  input: NewLiquidationAddress,
): Promise<LiquidationAddressResource> {
  const bank = input.destination.bankAccount;
  const sealed = bank ? keyring.sealJson(bank, input.id) : null;
  const mask = bank ? bankMaskOf(bank) : null;
  const beneficiary = input.destination.beneficiary ? keyring.sealJson(input.destination.beneficiary, input.id) : null;
  return writeAndAnnounce(
    sql,
    {
      text: `INSERT INTO liquidation_addresses (id, merchant_id, customer_id, wallet_id, destination_id, chain, asset, decimals,
       address, destination_kind, destination_asset, destination_network, destination_decimals, destination_address,
       destination_bank_ciphertext, destination_bank_key_id, destination_bank_mask, beneficiary_ciphertext,
       beneficiary_key_id, return_address, reference)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21)
     RETURNING ${LIQUIDATION_ADDRESS_COLUMNS}`,
      params: [
        input.id,
        input.merchantId,
        input.customerId,
        input.walletId,
        input.destinationId,
        input.chain,
        input.asset,
        input.decimals,
        input.address,
        input.destination.kind,
        input.destination.asset,
        input.destination.network,
        input.destination.decimals,
        input.destination.address,
        sealed?.ciphertext ?? null,
        sealed?.keyId ?? null,
        mask ? JSON.stringify(mask) : null,
        beneficiary?.ciphertext ?? null,
        beneficiary?.keyId ?? null,
        input.returnAddress,
        input.reference,
      ],
    },
    { type: "liquidation_address.created", merchantId: input.merchantId, idempotencyKey: input.idempotencyKey },
  );
}

export async function findLiquidationAddress(
  sql: Queryable,
  merchantId: string,
  id: string,
  lock = "",
): Promise<LiquidationAddressRow | undefined> {
  const { rows } = await sql.query<LiquidationAddressRow>(
    `SELECT ${LIQUIDATION_ADDRESS_COLUMNS} FROM liquidation_addresses WHERE merchant_id = $1 AND id = $2 ${lock}`,
    [merchantId, id],
  );
  return rows[0];
}

/** A value sealed on the address (its id the associated data), or null when the column is empty. */
function openSealed(keyring: EncryptionKeyring, id: string, ciphertext: Buffer | null, keyId: string | null): unknown {
  return ciphertext && keyId ? keyring.openJson({ keyId, ciphertext }, id) : null;
}

/** The full bank details of an address's destination. */
export function openBankDestination(keyring: EncryptionKeyring, row: LiquidationAddressRow): UsBankAccount {
  const bank = openSealed(keyring, row.id, row.destination_bank_ciphertext, row.destination_bank_key_id);
  if (bank === null) throw new Error(`liquidation address ${row.id} has no bank destination`);
  return bank as UsBankAccount;
}

/** The beneficiary the address was created with, or null when none was given. */
export function openAddressBeneficiary(keyring: EncryptionKeyring, row: LiquidationAddressRow): Beneficiary | null {
  return openSealed(keyring, row.id, row.beneficiary_ciphertext, row.beneficiary_key_id) as Beneficiary | null;
}

/**
 * Disables an active address: deposits seen from now on are ordinary deposits (credited with the
 * deposit fee); drains already made go on. Disabling a disabled address is 409.
 */
export async function disableLiquidationAddress(
  sql: Queryable,
  input: { merchantId: string; id: string; idempotencyKey?: string | undefined },
): Promise<LiquidationAddressResource> {
  const row = await findLiquidationAddress(sql, input.merchantId, input.id, "FOR UPDATE");
  if (!row) throw new NotFoundError("Liquidation address");
  if (row.status === "disabled") throw new ConflictError("The liquidation address is already disabled");
  return writeAndAnnounce(
    sql,
    {
      text: `UPDATE liquidation_addresses SET status = 'disabled', disabled_at = now(), updated_at = now()
              WHERE id = $1 RETURNING ${LIQUIDATION_ADDRESS_COLUMNS}`,
      params: [row.id],
    },
    { type: "liquidation_address.disabled", merchantId: input.merchantId, idempotencyKey: input.idempotencyKey },
  );
}
