import { UnauthorizedError } from "@mp/core";
import { type Database, queryNamed } from "@mp/db";
import type { Request } from "express";
import { type Environment, hashApiKey, looksLikeApiKey } from "./api-keys.ts";

export interface AuthenticatedMerchant {
  merchantId: string;
  keyId: string;
  environment: Environment;
}

const API_KEY_BY_HASH = {
  name: "api_key_by_hash",
  // A disabled merchant's keys (migrations/0146) are refused like revoked ones.
  text: `SELECT k.id, k.merchant_id, k.environment FROM api_keys k JOIN merchants m ON m.id = k.merchant_id
          WHERE k.key_hash = $1 AND k.revoked_at IS NULL AND m.disabled_at IS NULL`,
};

/** The key from `X-Service-API-Key` (any case) or `Authorization: ApiKey <key>`. */
export function extractApiKey(req: Request): string | undefined {
  const header = req.get("x-service-api-key");
  if (header) return header.trim();
  const authorization = req.get("authorization");
  const match = authorization ? /^ApiKey\s+(\S+)\s*$/i.exec(authorization) : null;
  return match?.[1];
}

/**
 * Resolves the request's key to its merchant. Every unknown, malformed or revoked key, and every key
 * of a disabled merchant, gets the same 401, so the answer tells an attacker nothing about which keys exist.
 */
export async function authenticate(db: Database, req: Request): Promise<AuthenticatedMerchant> {
  const key = extractApiKey(req);
  if (!key || !looksLikeApiKey(key)) throw new UnauthorizedError();
  // Looked up on every request (no cache), so a revoked key stops working at once.
  const result = await queryNamed<{ id: string; merchant_id: string; environment: Environment }>(db, API_KEY_BY_HASH, [
    hashApiKey(key),
  ]);
  const row = result.rows[0];
  if (!row) throw new UnauthorizedError();
  return { merchantId: row.merchant_id, keyId: row.id, environment: row.environment };
}
