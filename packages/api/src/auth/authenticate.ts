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

/** The key's row, or undefined when it is unknown, revoked or its merchant disabled. */
async function lookUpKey(db: Database, hash: Buffer): Promise<AuthenticatedMerchant | undefined> {
  const result = await queryNamed<{ id: string; merchant_id: string; environment: Environment }>(db, API_KEY_BY_HASH, [
    hash,
  ]);
  const row = result.rows[0];
  return row ? { merchantId: row.merchant_id, keyId: row.id, environment: row.environment } : undefined;
}

const KNOWN_KEYS_MAX = 10_000;

/**
 * Keys that authenticated before in this process, by hash (never the key itself): what their lookup
 * answered. Only a claim, never trusted alone: every request still looks its key up (see
 * authenticateRequest), so a key revoked by any process fails on its very next request.
 */
export class KnownKeys {
  private readonly byHash = new Map<string, AuthenticatedMerchant>();

  get(hash: string): AuthenticatedMerchant | undefined {
    return this.byHash.get(hash);
  }

  remember(hash: string, merchant: AuthenticatedMerchant): void {
    // Bounded: past the limit it starts over (a miss only costs the lookup's wait).
    if (this.byHash.size >= KNOWN_KEYS_MAX) this.byHash.clear();
    this.byHash.set(hash, merchant);
  }

  forget(hash: string): void {
    this.byHash.delete(hash);
  }
}

export interface Authentication {
  merchant: AuthenticatedMerchant;
  /**
   * Settles once the key's lookup has answered: rejects with the 401 when the key turned out revoked
   * (or its merchant disabled). Nothing may be answered before it resolves.
   */
  confirmed: Promise<void>;
}

const CONFIRMED: Promise<void> = Promise.resolve();

/**
 * Resolves the request's key to its merchant. Every unknown, malformed or revoked key, and every key
 * of a disabled merchant, gets the same 401, so the answer tells an attacker nothing about which keys exist.
 *
 * The key is looked up on every request (no cache decides), so a revoked key stops working at once.
 * With `known` (reads only: they change nothing before their answer), a key this process has seen
 * valid does not wait for its lookup: the route's own first query is issued in the same turn of the
 * event loop, so the pool sends both in one write (batched-queries.ts) and the request makes one
 * round trip instead of two; the answer waits for `confirmed`. This was the largest per-request cost
 * of an authenticated read next to bare Express (docs/benchmarks.md).
 */
export async function authenticateRequest(db: Database, req: Request, known?: KnownKeys): Promise<Authentication> {
  const key = extractApiKey(req);
  if (!key || !looksLikeApiKey(key)) throw new UnauthorizedError();
  const hash = hashApiKey(key);
  const lookup = lookUpKey(db, hash);
  const hashKey = hash.toString("base64");
  const claimed = known?.get(hashKey);
  if (claimed && known) {
    const confirmed = lookup.then((found) => {
      if (found?.keyId === claimed.keyId) return;
      known.forget(hashKey);
      throw new UnauthorizedError();
    });
    // Awaited before any answer; this only keeps an unawaited rejection from being reported as unhandled.
    confirmed.catch(() => undefined);
    return { merchant: claimed, confirmed };
  }
  const merchant = await lookup;
  if (!merchant) throw new UnauthorizedError();
  known?.remember(hashKey, merchant);
  return { merchant, confirmed: CONFIRMED };
}
