import { randomUUID } from "node:crypto";
import type { Queryable } from "@mp/db";
import type { WalletDestination } from "../src/index.ts";

export async function insertMerchant(db: Queryable, derivationAccount: number): Promise<string> {
  const id = randomUUID();
  await db.query("INSERT INTO merchants (id, name, environment, derivation_account) VALUES ($1, $2, 'sandbox', $3)", [
    id,
    `merchant ${derivationAccount}`,
    derivationAccount,
  ]);
  return id;
}

export async function insertCustomer(db: Queryable, merchantId: string): Promise<string> {
  const id = randomUUID();
  await db.query("INSERT INTO customers (id, merchant_id, type) VALUES ($1, $2, 'INDIVIDUAL')", [id, merchantId]);
  return id;
}

export interface InsertWallet {
  merchantId: string;
  customerId: string;
  index: number;
  destinations: readonly Pick<WalletDestination, "chain" | "address" | "addressKey" | "path">[];
  /** Backdates the destination rows (e.g. "1 hour"), as rows written long before a refresh. */
  age?: string;
}

export async function insertWallet(db: Queryable, wallet: InsertWallet): Promise<string> {
  const walletId = randomUUID();
  await db.query(
    "INSERT INTO wallets (id, merchant_id, customer_id, label, derivation_index) VALUES ($1, $2, $3, 'test', $4)",
    [walletId, wallet.merchantId, wallet.customerId, wallet.index],
  );
  for (const d of wallet.destinations) {
    await db.query(
      `INSERT INTO destinations (id, wallet_id, merchant_id, chain, address, address_key, derivation_path, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, now() - $8::interval)`,
      [randomUUID(), walletId, wallet.merchantId, d.chain, d.address, d.addressKey, d.path, wallet.age ?? "0 seconds"],
    );
  }
  return walletId;
}
