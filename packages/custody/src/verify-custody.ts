import { type ChainId, chainFamily, chainIdSchema, ValidationError } from "@mp/core";
import type { Queryable } from "@mp/db";
import { z } from "zod";
import type { Custody, DerivedAddress } from "./custody.ts";

export type CustodyProblem =
  /** The stored chain is not one of the ten. */
  | "unknown_chain"
  /** The stored path does not have the shape of a receive path of that chain. */
  | "unparseable_path"
  /** The stored path is not the one this mnemonic/network uses for that account and index (e.g. wrong coin type). */
  | "path"
  /** The stored path names another account or index than the merchant's account and the wallet's index. */
  | "allocation"
  /** The address derived from the stored path differs from the stored address. */
  | "address"
  /** The stored matching key is not the normalised form of the derived address. */
  | "address_key";

export interface CustodyMismatch {
  destinationId: string;
  walletId: string;
  merchantId: string;
  chain: string;
  problem: CustodyProblem;
  stored: { address: string; addressKey: string; path: string };
  /** What the configured mnemonic derives for the stored path (null when the path could not be read). */
  derived: DerivedAddress | null;
}

export interface VerifyCustodyOptions {
  /** Only this merchant's destinations. */
  merchantId?: string;
  pageSize?: number;
  /** Called after each page with the number of destinations checked so far. */
  onProgress?: (checked: number) => void;
}

export interface VerifyCustodyResult {
  checked: number;
  mismatches: CustodyMismatch[];
}

interface Row {
  seq: string;
  id: string;
  wallet_id: string;
  merchant_id: string;
  chain: string;
  address: string;
  address_key: string;
  derivation_path: string;
  derivation_account: number;
  derivation_index: number;
}

/**
 * Re-derives every stored destination from its derivation path with the configured mnemonic and
 * reports each one that does not match: the operator's proof that every address the service handed
 * out can be spent by the keys it holds. Reads in seq order, one page at a time.
 */
export async function verifyCustody(
  db: Queryable,
  custody: Custody,
  options: VerifyCustodyOptions = {},
): Promise<VerifyCustodyResult> {
  if (options.merchantId !== undefined && !z.uuid().safeParse(options.merchantId).success) {
    throw new ValidationError("merchant id must be a UUID", "merchant_id");
  }
  const pageSize = options.pageSize ?? 2_000;
  const mismatches: CustodyMismatch[] = [];
  let checked = 0;
  let cursor = "0";
  for (;;) {
    const { rows } = await db.query<Row>(
      `SELECT d.seq, d.id, d.wallet_id, d.merchant_id, d.chain, d.address, d.address_key,
              d.derivation_path, m.derivation_account, w.derivation_index
         FROM destinations d
         JOIN wallets w ON w.id = d.wallet_id
         JOIN merchants m ON m.id = d.merchant_id
        WHERE d.seq > $1 AND ($2::uuid IS NULL OR d.merchant_id = $2::uuid)
        ORDER BY d.seq
        LIMIT $3`,
      [cursor, options.merchantId ?? null, pageSize],
    );
    // The seven EVM destinations of a wallet share one derivation: compute it once per page.
    const derivations = new Map<string, DerivedAddress>();
    for (const row of rows) {
      const problem = check(row, custody, derivations);
      if (problem) mismatches.push(problem);
    }
    checked += rows.length;
    options.onProgress?.(checked);
    const last = rows.at(-1);
    if (!last || rows.length < pageSize) return { checked, mismatches };
    cursor = last.seq;
  }
}

function check(row: Row, custody: Custody, derivations: Map<string, DerivedAddress>): CustodyMismatch | null {
  const mismatch = (problem: CustodyProblem, derived: DerivedAddress | null): CustodyMismatch => ({
    destinationId: row.id,
    walletId: row.wallet_id,
    merchantId: row.merchant_id,
    chain: row.chain,
    problem,
    stored: { address: row.address, addressKey: row.address_key, path: row.derivation_path },
    derived,
  });
  const chain = chainIdSchema.safeParse(row.chain);
  if (!chain.success) return mismatch("unknown_chain", null);
  const position = custody.receivePosition(chain.data, row.derivation_path);
  if (!position) return mismatch("unparseable_path", null);
  const derived = derive(custody, chain.data, position.account, position.index, derivations);
  if (derived.path !== row.derivation_path) return mismatch("path", derived);
  if (derived.address !== row.address) return mismatch("address", derived);
  if (derived.addressKey !== row.address_key) return mismatch("address_key", derived);
  if (position.account !== row.derivation_account || position.index !== row.derivation_index) {
    return mismatch("allocation", derived);
  }
  return null;
}

function derive(
  custody: Custody,
  chain: ChainId,
  account: number,
  index: number,
  derivations: Map<string, DerivedAddress>,
): DerivedAddress {
  const key = `${chainFamily(chain)}/${account}/${index}`;
  let derived = derivations.get(key);
  if (!derived) {
    derived = custody.deriveAddress(chain, account, index);
    derivations.set(key, derived);
  }
  return derived;
}
