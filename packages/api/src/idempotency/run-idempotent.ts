import { createHash, createHmac, timingSafeEqual } from "node:crypto";
import { type AppError, ConflictError, ValidationError } from "@mp/core";
import { type Database, type Queryable, queryNamed } from "@mp/db";
import type { EncryptionKeyring } from "@mp/encryption";
import { isClientError } from "../http/error-handler.ts";

/** Idempotency keys are kept at least this long (the sweeper deletes older ones). */
export const IDEMPOTENCY_RETENTION_HOURS = 48;

const KEY_SHAPE = /^[\x21-\x7e]{1,255}$/;

export interface StoredResponse {
  status: number;
  /** The serialised body, replayed byte for byte. */
  body: string;
  replayed: boolean;
}

/** Canonical JSON (keys sorted at every level) so the same body in another key order matches. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

const FINGERPRINT_PURPOSE = "idempotency-request-fingerprint";
const KEYED = /^hmac1:([0-9a-f]{8}):[0-9a-f]{64}$/;
const LEGACY = /^[0-9a-f]{64}$/;

const requestText = (method: string, path: string, body: unknown): string =>
  `${method} ${path}\n${canonicalJson(body ?? null)}`;

/**
 * What the idempotency record keeps of a request (bodies carry KYC payloads): an HMAC-SHA256 under a
 * key derived from the encryption key (keyring.derivedKey), never a plain hash that a guessed payload
 * could be checked against. Stored as `hmac1:<key id>:<hex>` so a replay after a key rotation is
 * checked under the key it was recorded with (while the keyring still holds it).
 */
export function requestFingerprint(
  keyring: EncryptionKeyring,
  request: { method: string; path: string; body: unknown },
  keyId: string = keyring.currentKeyId,
): string {
  const mac = createHmac("sha256", keyring.derivedKey(FINGERPRINT_PURPOSE, keyId))
    .update(requestText(request.method, request.path, request.body))
    .digest("hex");
  return `hmac1:${keyId}:${mac}`;
}

/**
 * True when `stored` is the fingerprint of `request`. Rows recorded before fingerprints were keyed
 * hold a plain SHA-256 (64 hex digits): they are still compared that way, so a retry within the
 * retention window replays instead of answering 409, and the sweeper removes them within 48 hours;
 * no migration rewrites them (the bodies are not kept, so they cannot be re-keyed). A row keyed under
 * a key no longer configured cannot be checked and counts as another request.
 */
function sameRequest(
  keyring: EncryptionKeyring,
  stored: string,
  request: { method: string; path: string; body: unknown },
): boolean {
  const keyed = KEYED.exec(stored);
  let expected: string;
  if (keyed?.[1]) {
    if (!keyring.has(keyed[1])) return false;
    expected = requestFingerprint(keyring, request, keyed[1]);
  } else if (LEGACY.test(stored)) {
    expected = createHash("sha256")
      .update(requestText(request.method, request.path, request.body))
      .digest("hex");
  } else {
    return false;
  }
  return expected.length === stored.length && timingSafeEqual(Buffer.from(expected), Buffer.from(stored));
}

export function validateIdempotencyKey(key: string | undefined): string {
  if (key === undefined || key === "") {
    throw new ValidationError("X-Idempotency-Key header is required", "X-Idempotency-Key");
  }
  if (!KEY_SHAPE.test(key)) {
    throw new ValidationError("X-Idempotency-Key must be 1 to 255 printable characters", "X-Idempotency-Key");
  }
  return key;
}

// Named: every idempotent POST runs both, so they are parsed and planned once per connection.
const CLAIM_KEY = {
  name: "idempotency_claim_key",
  text: `INSERT INTO idempotency_keys (merchant_id, key, request_hash, method, path, response_status, response_body)
         VALUES ($1, $2, $3, $4, $5, 0, '')
         ON CONFLICT (merchant_id, key) DO NOTHING`,
};
const RECORD_ANSWER = {
  name: "idempotency_record_answer",
  text: "UPDATE idempotency_keys SET response_status = $3, response_body = $4 WHERE merchant_id = $1 AND key = $2",
};

/**
 * Runs a create operation at most once per (merchant, key).
 *
 * The idempotency row is inserted first, in the same transaction as the operation's writes, and
 * updated with the response before COMMIT. So:
 * - the operation and its recorded answer commit together or not at all (a crash leaves neither);
 * - a concurrent request with the same key blocks on the row's unique index until the first
 *   commits, then replays its answer (the documented "wait" behaviour), or proceeds if it rolled back;
 * - a 4xx answer is recorded (after rolling the operation's writes back to a savepoint), a 5xx is
 *   not, so a retry after an outage can succeed;
 * - the same key with a different method, path or body is 409.
 * Round trips: BEGIN + key + SAVEPOINT, the operation's own, then the answer + COMMIT.
 *
 * `startBeforeClaim` (for operations whose only effects are writes through `sql`): the operation's
 * first statement goes out with the key, inside the savepoint, saving a round trip. On a replay its
 * writes are rolled back to the savepoint before the stored answer is read, so it never takes effect.
 */
export async function runIdempotent(
  db: Database,
  input: {
    merchantId: string;
    key: string;
    method: string;
    path: string;
    body: unknown;
    /** Keys the request fingerprint (requestFingerprint). */
    keyring: EncryptionKeyring;
  },
  operation: (sql: Queryable) => Promise<{ status: number; body: string }>,
  renderError: (error: AppError) => { status: number; body: string },
  options: { startBeforeClaim?: boolean; sealAnswer?: boolean } = {},
): Promise<StoredResponse> {
  const hash = requestFingerprint(input.keyring, input);
  // Written but not awaited inside the transaction, so it shares COMMIT's round trip (pipeline mode).
  let recorded: Promise<unknown> | undefined;
  try {
    return await db.tx(async (client) => {
      // BEGIN, the key and the savepoint travel together; the savepoint is harmless on a replay.
      const inserting = queryNamed(client, CLAIM_KEY, [input.merchantId, input.key, hash, input.method, input.path]);
      const savepoint = client.query("SAVEPOINT operation");
      savepoint.catch(() => {});
      // Settled, never rejected: its error is dealt with below, once the claim has been read.
      const early = options.startBeforeClaim ? settle(operation(client)) : undefined;
      const inserted = await inserting;
      if (inserted.rowCount === 0) {
        if (early) {
          await early;
          await client.query("ROLLBACK TO SAVEPOINT operation");
        }
        const existing = await client.query<{ request_hash: string; response_status: number; response_body: string }>(
          "SELECT request_hash, response_status, response_body FROM idempotency_keys WHERE merchant_id = $1 AND key = $2",
          [input.merchantId, input.key],
        );
        const row = existing.rows[0];
        if (!row) throw new ConflictError("Idempotency key is being processed; retry", "idempotency_in_progress");
        if (!sameRequest(input.keyring, row.request_hash, input)) {
          throw new ConflictError(
            "X-Idempotency-Key was already used with a different request body",
            "idempotency_conflict",
          );
        }
        return { status: row.response_status, body: openAnswer(input, row.response_body), replayed: true };
      }
      await savepoint;

      let response: { status: number; body: string };
      try {
        response = early ? unwrap(await early) : await operation(client);
      } catch (error) {
        // Client errors are answers too: undo the operation's writes, keep and replay the answer.
        if (isClientError(error)) {
          await client.query("ROLLBACK TO SAVEPOINT operation");
          response = renderError(error);
        } else {
          throw error;
        }
      }
      const stored = options.sealAnswer ? sealAnswer(input, response.body) : response.body;
      recorded = queryNamed(client, RECORD_ANSWER, [input.merchantId, input.key, response.status, stored]);
      recorded.catch(() => {});
      return { ...response, replayed: false };
    });
  } catch (error) {
    // The recording statement's own error says more than "COMMIT rolled back".
    if (recorded) await recorded;
    throw error;
  }
}

/** Marks a recorded answer stored sealed (a JSON answer never starts with it). */
const SEALED_PREFIX = "sealed:";

/**
 * An answer that shows a secret once (a webhook signing secret) is recorded sealed under the
 * encryption key, bound to its merchant and key: the secret is never at rest in clear, and a retry
 * still replays it byte for byte. Kept 48 h like every record: keep an old key that long after a rotation.
 */
function sealAnswer(input: { keyring: EncryptionKeyring; merchantId: string; key: string }, body: string): string {
  const sealed = input.keyring.seal(body, `idempotency:${input.merchantId}:${input.key}`);
  return `${SEALED_PREFIX}${sealed.keyId}:${sealed.ciphertext.toString("base64")}`;
}

function openAnswer(input: { keyring: EncryptionKeyring; merchantId: string; key: string }, stored: string): string {
  if (!stored.startsWith(SEALED_PREFIX)) return stored;
  const [keyId = "", ciphertext = ""] = stored.slice(SEALED_PREFIX.length).split(":");
  const sealed = { keyId, ciphertext: Buffer.from(ciphertext, "base64") };
  return input.keyring.open(sealed, `idempotency:${input.merchantId}:${input.key}`).toString("utf8");
}

type Settled<T> = { ok: true; value: T } | { ok: false; error: unknown };

function settle<T>(promise: Promise<T>): Promise<Settled<T>> {
  return promise.then(
    (value) => ({ ok: true, value }),
    (error: unknown) => ({ ok: false, error }),
  );
}

function unwrap<T>(settled: Settled<T>): T {
  if (settled.ok) return settled.value;
  throw settled.error;
}

/** Deletes keys older than the retention period. */
export async function sweepIdempotencyKeys(sql: Queryable): Promise<number> {
  const result = await sql.query(
    `DELETE FROM idempotency_keys WHERE created_at < now() - make_interval(hours => $1::int)`,
    [IDEMPOTENCY_RETENTION_HOURS],
  );
  return result.rowCount ?? 0;
}
