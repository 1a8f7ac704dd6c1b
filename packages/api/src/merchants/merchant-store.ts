import { randomUUID } from "node:crypto";
import type { Database } from "@mp/db";
import { type CreatedApiKey, createApiKey, type Environment } from "../auth/api-keys.ts";

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
}

/** One merchant, or every merchant in creation order when `merchantId` is undefined. */
export async function listMerchants(db: Database, merchantId?: string): Promise<MerchantSummary[]> {
  const result = await db.query<{ id: string; name: string; environment: Environment; created_at: Date }>(
    `SELECT id, name, environment, created_at FROM merchants
      WHERE $1::uuid IS NULL OR id = $1::uuid ORDER BY derivation_account`,
    [merchantId ?? null],
  );
  return result.rows.map((row) => ({
    id: row.id,
    name: row.name,
    environment: row.environment,
    createdAt: row.created_at,
  }));
}
