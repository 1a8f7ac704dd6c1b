import { randomUUID } from "node:crypto";
import { CHAIN_IDS, type ChainId, CustomerNotVerifiedError, iso, NotFoundError, normalizeAddress } from "@mp/core";
import { type Queryable, queryNamed } from "@mp/db";
import { appendResourceEvent } from "@mp/events";
import { cryptoAllowedSql } from "@mp/ledger";
import type { DerivedAddress } from "../deps.ts";
import { defineGetQuery, defineListQuery, type ResourceTable } from "../shared/list-page.ts";
import { type RowOf, resourceOfColumns } from "../shared/resource-row.ts";
import type { WalletSlot } from "./wallet-index-allocator.ts";
import type { DestinationResource, WalletResource } from "./wallet-schemas.ts";

type WalletRow = RowOf<Omit<WalletResource, "destinations">, "created_at" | "updated_at">;

type DestinationRow = RowOf<DestinationResource, "last_attempted_at" | "provisioned_at"> & { wallet_id: string };

const CHAIN_ORDER = new Map(CHAIN_IDS.map((chain, i) => [chain, i]));

function toWallet(row: WalletRow, destinations: DestinationRow[]): WalletResource {
  return {
    id: row.id,
    merchant_id: row.merchant_id,
    customer_id: row.customer_id,
    label: row.label,
    status: row.status,
    destinations: destinations
      .sort((a, b) => (CHAIN_ORDER.get(a.chain) ?? 0) - (CHAIN_ORDER.get(b.chain) ?? 0))
      .map(toDestination),
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  };
}

const WALLET_COLUMNS = "w.id, w.merchant_id, w.customer_id, w.label, w.status, w.created_at, w.updated_at";
// A destination's fields, in the resource's order; its row adds the wallet_id it is grouped by.
const DESTINATION_FIELDS = "id, chain, address, status, failure_reason, last_attempted_at, provisioned_at";
const DESTINATION_COLUMNS = `wallet_id, ${DESTINATION_FIELDS}`;
const toDestination: (row: DestinationRow) => DestinationResource = resourceOfColumns(DESTINATION_FIELDS);

/**
 * Wallets with their destinations, read with a second statement for the whole page. Only customer
 * wallets: a transfer's funding address (purpose TRANSFER_FUNDING) is shown by its transfer.
 */
const WALLETS: ResourceTable<WalletRow, WalletResource> = {
  from: "(SELECT * FROM wallets WHERE purpose = 'CUSTOMER') w",
  columns: WALLET_COLUMNS,
  orderBy: "w.created_at DESC, w.id DESC",
  async toItems(rows, sql) {
    const destinations = await destinationsOf(
      sql,
      rows.map((r) => r.id),
    );
    return rows.map((row) => toWallet(row, destinations.get(row.id) ?? []));
  },
};

async function destinationsOf(sql: Queryable, walletIds: string[]): Promise<Map<string, DestinationRow[]>> {
  const byWallet = new Map<string, DestinationRow[]>(walletIds.map((id) => [id, []]));
  if (walletIds.length === 0) return byWallet;
  const rows = await sql.query<DestinationRow>(
    `SELECT ${DESTINATION_COLUMNS} FROM destinations WHERE wallet_id = ANY($1::uuid[])`,
    [walletIds],
  );
  for (const row of rows.rows) byWallet.get(row.wallet_id)?.push(row);
  return byWallet;
}

/**
 * The wallet and its ten destinations in one statement, only if the customer is this merchant's and
 * its capabilities allow crypto (a rejected customer gets no new wallet). The customer row is read
 * FOR SHARE, so a verification outcome being written (which locks it FOR UPDATE) lands before or
 * after, never beside, the check. Named: parsed and planned once per connection.
 */
const INSERT_WALLET = {
  name: "insert_wallet_with_destinations",
  text: `WITH named AS (
       SELECT id, ${cryptoAllowedSql("customers")} AS allowed FROM customers WHERE merchant_id = $2 AND id = $3 FOR SHARE
     ), c AS (
       -- A payment request may name no customer: its wallet then has none.
       SELECT id, allowed FROM named UNION ALL SELECT NULL::uuid, true WHERE $3::uuid IS NULL AND $11 = 'PAYMENT_REQUEST'
     ), w AS (
       INSERT INTO wallets (id, merchant_id, customer_id, label, derivation_index, purpose)
       SELECT $1, $2, c.id, $4, $5, $11 FROM c WHERE c.allowed
       RETURNING id, merchant_id, customer_id, label, status, created_at, updated_at
     ), d AS (
       INSERT INTO destinations (id, wallet_id, merchant_id, chain, address, address_key, derivation_path, status, provisioned_at, last_attempted_at)
       SELECT d.id, w.id, $2, d.chain, d.address, d.address_key, d.path, 'ACTIVE', now(), now()
       FROM w, unnest($6::uuid[], $7::text[], $8::text[], $9::text[], $10::text[]) WITH ORDINALITY AS d(id, chain, address, address_key, path, n)
       ORDER BY d.n
       RETURNING ${DESTINATION_COLUMNS}
     )
     SELECT c.allowed AS customer_allowed, ${WALLET_COLUMNS}, (SELECT json_agg(d) FROM d) AS destinations
       FROM c LEFT JOIN w ON true`,
};

/**
 * Creates a wallet and its ten destinations at the slot (merchant account, wallet index) reserved for
 * this request (WalletIndexAllocator), with the addresses derived from that slot, in one round trip;
 * its `wallet.created` event in a second (the event holds the wallet as answered). A transfer's
 * funding wallet (purpose TRANSFER_FUNDING) and a payment request's (PAYMENT_REQUEST, with or without
 * a customer) are made the same way, without the event: the merchant did not create a wallet, its
 * transfer or request shows the address.
 */
export async function createWallet(
  sql: Queryable,
  input: {
    merchantId: string;
    /** null only for a payment request's wallet (its request names no customer). */
    customerId: string | null;
    label: string;
    slot: WalletSlot;
    addresses: DerivedAddress[];
    idempotencyKey?: string | undefined;
    purpose?: "CUSTOMER" | "TRANSFER_FUNDING" | "PAYMENT_REQUEST" | "LIQUIDATION";
  },
): Promise<WalletResource> {
  const purpose = input.purpose ?? "CUSTOMER";
  const walletId = randomUUID();
  const derived = input.addresses;
  const { rows } = await queryNamed<WalletRow & { customer_allowed: boolean; destinations: DestinationRow[] }>(
    sql,
    INSERT_WALLET,
    [
      walletId,
      input.merchantId,
      input.customerId,
      input.label,
      input.slot.index,
      derived.map(() => randomUUID()),
      derived.map((d) => d.chain),
      derived.map((d) => d.address),
      derived.map((d) => d.addressKey),
      derived.map((d) => d.path),
      purpose,
    ],
  );
  const row = rows[0];
  // The merchant is the authenticated one, so no row means no such customer of this merchant.
  if (!row) throw new NotFoundError("Customer");
  if (!row.customer_allowed) {
    throw new CustomerNotVerifiedError("The customer's verification was rejected: it cannot get a new wallet");
  }
  const destinations = row.destinations.map((d) => ({
    ...d,
    last_attempted_at: d.last_attempted_at === null ? null : new Date(d.last_attempted_at),
    provisioned_at: d.provisioned_at === null ? null : new Date(d.provisioned_at),
  }));
  const wallet = toWallet(row, destinations);
  if (purpose === "CUSTOMER") {
    await appendResourceEvent(sql, input.merchantId, "wallet.created", wallet, input.idempotencyKey);
  }
  return wallet;
}

export const findWallet = defineGetQuery(WALLETS);

export interface WalletFilters {
  customer_id?: string | undefined;
  chain?: ChainId | undefined;
  status?: string | undefined;
  q?: string | undefined;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const listWallets = defineListQuery(WALLETS, "w.merchant_id", (where, filters: WalletFilters) => {
  where
    .add("w.customer_id = $?", filters.customer_id)
    .add("w.status = $?", filters.status)
    .add("EXISTS (SELECT 1 FROM destinations d WHERE d.wallet_id = w.id AND d.chain = $?)", filters.chain);
  if (filters.q !== undefined) {
    // Search: the label (substring, any case), an exact address (EVM hex in any case), or the wallet id.
    const label = `%${filters.q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    const clauses = [
      `w.label ILIKE ${where.param(label)}`,
      `EXISTS (SELECT 1 FROM destinations d WHERE d.wallet_id = w.id AND d.address_key IN (${where.param(filters.q)}, ${where.param(normalizeAddress("ETHEREUM", filters.q))}))`,
    ];
    if (UUID.test(filters.q)) clauses.push(`w.id = ${where.param(filters.q.toLowerCase())}::uuid`);
    where.addClause(`(${clauses.join(" OR ")})`);
  }
});

export async function findDepositAddress(sql: Queryable, merchantId: string, destinationId: string) {
  const result = await sql.query<{
    id: string;
    merchant_id: string;
    chain: ChainId;
    address: string;
    status: DestinationResource["status"];
  }>("SELECT id, merchant_id, chain, address, status FROM destinations WHERE merchant_id = $1 AND id = $2", [
    merchantId,
    destinationId,
  ]);
  return result.rows[0];
}
