import { randomUUID } from "node:crypto";
import type { Database, Queryable } from "@mp/db";
import { type CreatedApiKey, createApiKey, type Environment } from "../auth/api-keys.ts";
import { keysRevoked } from "../auth/key-revocations.ts";

export interface CreatedMerchant {
  merchantId: string;
  environment: Environment;
  derivationAccount: number;
  key: CreatedApiKey;
}

/**
 * Creates a merchant with the next derivation account (allocated from 0 in creation order under a
 * row lock on the counter, so concurrent creations never share or skip an account) and its first key.
 */
export async function createMerchant(
  db: Database,
  input: { name: string; environment: Environment },
): Promise<CreatedMerchant> {
  return db.tx(async (client) => {
    const counter = await client.query<{ value: string }>(
      "UPDATE counters SET value = value + 1 WHERE name = 'merchant_derivation_account' RETURNING value - 1 AS value",
    );
    const derivationAccount = Number(counter.rows[0]?.value);
    const merchantId = randomUUID();
    await client.query("INSERT INTO merchants (id, name, environment, derivation_account) VALUES ($1, $2, $3, $4)", [
      merchantId,
      input.name,
      input.environment,
      derivationAccount,
    ]);
    const key = await createApiKey(client, merchantId, input.environment);
    return { merchantId, environment: input.environment, derivationAccount, key };
  });
}

export async function findMerchantEnvironment(db: Database, merchantId: string): Promise<Environment | undefined> {
  const result = await db.query<{ environment: Environment }>("SELECT environment FROM merchants WHERE id = $1", [
    merchantId,
  ]);
  return result.rows[0]?.environment;
}

export interface MerchantSummary {
  id: string;
  name: string;
  environment: Environment;
  createdAt: Date;
  /** Set while an operator has the merchant disabled: its API keys answer 401. */
  disabledAt: Date | null;
}

/** One merchant, or every merchant in creation order when `merchantId` is undefined. */
export async function listMerchants(db: Database, merchantId?: string): Promise<MerchantSummary[]> {
  const result = await db.query<{
    id: string;
    name: string;
    environment: Environment;
    created_at: Date;
    disabled_at: Date | null;
  }>(
    `SELECT id, name, environment, created_at, disabled_at FROM merchants
      WHERE $1::uuid IS NULL OR id = $1::uuid ORDER BY derivation_account`,
    [merchantId ?? null],
  );
  return result.rows.map((row) => ({
    id: row.id,
    name: row.name,
    environment: row.environment,
    createdAt: row.created_at,
    disabledAt: row.disabled_at,
  }));
}

/**
 * Disables (`disabled` true) or enables a merchant; answers whether it exists. Disabling an already
 * disabled merchant keeps its first date. Its keys stop working as revoked ones: in a transaction, call
 * `keysRevoked()` again once it committed (auth/key-revocations.ts).
 */
export async function setMerchantDisabled(sql: Queryable, merchantId: string, disabled: boolean): Promise<boolean> {
  const result = await sql.query(
    `UPDATE merchants SET disabled_at = CASE WHEN $2 THEN coalesce(disabled_at, now()) ELSE NULL END WHERE id = $1`,
    [merchantId, disabled],
  );
  if (disabled) keysRevoked();
  return (result.rowCount ?? 0) > 0;
}
