import { hash, randomBytes, randomUUID } from "node:crypto";
import type { Queryable } from "@mp/db";
import { keysRevoked } from "./key-revocations.ts";

export type Environment = "sandbox" | "production";

const ENV_PREFIX: Record<Environment, string> = { sandbox: "sk_sandbox_", production: "sk_live_" };
const KEY_SHAPE = /^sk_(sandbox|live)_[A-Za-z0-9_-]{43}$/;

/** SHA-256 of the full key. The key carries 256 random bits, so a fast hash is enough. */
export function hashApiKey(key: string): Buffer {
  // One-shot hash: no Hash object per request.
  return hash("sha256", key, "buffer");
}

export function looksLikeApiKey(key: string): boolean {
  return KEY_SHAPE.test(key);
}

export interface CreatedApiKey {
  id: string;
  /** The full key: returned once, never stored. */
  apiKey: string;
  prefix: string;
  environment: Environment;
}

/** 32 random bytes (base64url, 43 chars) after a readable prefix naming the environment. */
export async function createApiKey(
  sql: Queryable,
  merchantId: string,
  environment: Environment,
): Promise<CreatedApiKey> {
  const secret = randomBytes(32).toString("base64url");
  const apiKey = `${ENV_PREFIX[environment]}${secret}`;
  const prefix = `${ENV_PREFIX[environment]}${secret.slice(0, 8)}`;
  const id = randomUUID();
  await sql.query("INSERT INTO api_keys (id, merchant_id, prefix, key_hash, environment) VALUES ($1, $2, $3, $4, $5)", [
    id,
    merchantId,
    prefix,
    hashApiKey(apiKey),
    environment,
  ]);
  return { id, apiKey, prefix, environment };
}

/** Revokes the key with this displayed prefix (or whose full value is `prefixOrKey`). Returns how many were revoked. */
export async function revokeApiKey(sql: Queryable, prefixOrKey: string): Promise<number> {
  const result = await sql.query(
    "UPDATE api_keys SET revoked_at = now() WHERE (prefix = $1 OR key_hash = $2) AND revoked_at IS NULL",
    [prefixOrKey, hashApiKey(prefixOrKey)],
  );
  keysRevoked();
  return result.rowCount ?? 0;
}

/** A key as listings show it: never the secret, which is not stored. */
export interface ListedApiKey {
  id: string;
  prefix: string;
  environment: Environment;
  createdAt: Date;
  revokedAt: Date | null;
}

/** The merchant's keys, newest first, revoked ones included (marked). */
export async function listApiKeys(sql: Queryable, merchantId: string): Promise<ListedApiKey[]> {
  const result = await sql.query<{
    id: string;
    prefix: string;
    environment: Environment;
    created_at: Date;
    revoked_at: Date | null;
  }>(
    "SELECT id, prefix, environment, created_at, revoked_at FROM api_keys WHERE merchant_id = $1 ORDER BY created_at DESC, id",
    [merchantId],
  );
  return result.rows.map((row) => ({
    id: row.id,
    prefix: row.prefix,
    environment: row.environment,
    createdAt: row.created_at,
    revokedAt: row.revoked_at,
  }));
}

/**
 * Revokes one key of this merchant by id. Undefined when the merchant has no such key (another
 * merchant's key included: the caller answers 404); an already revoked key is returned as it is.
 * In a transaction, call `keysRevoked()` again once it committed (key-revocations.ts).
 */
export async function revokeMerchantApiKey(
  sql: Queryable,
  merchantId: string,
  keyId: string,
): Promise<ListedApiKey | undefined> {
  const result = await sql.query<{ prefix: string; environment: Environment; created_at: Date; revoked_at: Date }>(
    `UPDATE api_keys SET revoked_at = coalesce(revoked_at, now()) WHERE id = $1 AND merchant_id = $2
     RETURNING prefix, environment, created_at, revoked_at`,
    [keyId, merchantId],
  );
  keysRevoked();
  const row = result.rows[0];
  if (!row) return undefined;
  return {
    id: keyId,
    prefix: row.prefix,
    environment: row.environment,
    createdAt: row.created_at,
    revokedAt: row.revoked_at,
  };
}
