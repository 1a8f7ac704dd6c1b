import { UnauthorizedError } from "@mp/core";
import { type Database, queryNamed } from "@mp/db";
import type { Request } from "express";
import { type Environment, hashApiKey, looksLikeApiKey } from "./api-keys.ts";
import type { AuthenticatedMerchant } from "./authenticated-merchant.ts";
import type { VerifiedKeys } from "./verified-keys.ts";

export type { AuthenticatedMerchant };

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

export interface Authentication {
  merchant: AuthenticatedMerchant;
  /**
   * Present while the key's lookup has not answered: settles once it has, rejecting with the 401
   * when the key turned out revoked (or its merchant disabled). Nothing may be answered before it
   * resolves. Absent when the key is already confirmed.
   */
  confirmed?: Promise<void>;
}

/**
 * Resolves the request's key to its merchant. Every unknown, malformed or revoked key, and every key
 * of a disabled merchant, gets the same 401, so the answer tells an attacker nothing about which keys exist.
 *
 * With `verified`, a key verified within its time bound is trusted without a lookup (verified-keys.ts:
 * how revocations are honoured). Past the bound the key is looked up again; with `pipelined` (reads
 * only: they change nothing before their answer) the request does not wait for that lookup: the
 * route's own first query is issued in the same turn of the event loop, so the pool sends both in one
 * write (batched-queries.ts), and the answer waits for `confirmed`.
 */
export function authenticateRequest(
  db: Database,
  req: Request,
  verified?: VerifiedKeys,
  pipelined = false,
): Authentication | Promise<Authentication> {
  const key = extractApiKey(req);
  if (!key || !looksLikeApiKey(key)) throw new UnauthorizedError();
  const hash = hashApiKey(key);
  const hashKey = hash.toString("base64");
  const trusted = verified?.trusted(hashKey);
  if (trusted) return { merchant: trusted };
  return lookUpAndAuthenticate(db, hash, hashKey, verified, pipelined);
}

/** authenticateRequest past the key's time bound (or without verified keys): the lookup decides. */
async function lookUpAndAuthenticate(
  db: Database,
  hash: Buffer,
  hashKey: string,
  verified: VerifiedKeys | undefined,
  pipelined: boolean,
): Promise<Authentication> {
  const sent = verified?.stamp();
  const lookup = lookUpKey(db, hash);
  const claimed = pipelined ? verified?.claimed(hashKey) : undefined;
  if (claimed && verified && sent) {
    const confirmed = lookup.then((found) => {
      if (found?.keyId !== claimed.keyId) {
        verified.forget(hashKey);
        throw new UnauthorizedError();
      }
      verified.remember(hashKey, found, sent);
    });
    // Awaited before any answer; this only keeps an unawaited rejection from being reported as unhandled.
    confirmed.catch(() => undefined);
    return { merchant: claimed, confirmed };
  }
  const merchant = await lookup;
  if (!merchant) {
    verified?.forget(hashKey);
    throw new UnauthorizedError();
  }
  if (verified && sent) verified.remember(hashKey, merchant, sent);
  return { merchant };
}
