import { randomUUID } from "node:crypto";
import type { Queryable } from "@mp/db";
import type { EncryptedColumn, EncryptionKeyring } from "@mp/encryption";
import { generateSigningSecret } from "./signing.ts";

/** How long the previous secret keeps signing after a rotation. */
export const PREVIOUS_SECRET_VALIDITY_HOURS = 24;

/** Where the sealed secrets live, for `keys rotate-encryption` (services/payments ENCRYPTED_COLUMNS). */
export const WEBHOOK_SECRET_COLUMN: EncryptedColumn = {
  table: "webhook_endpoint_secrets",
  idColumn: "id",
  ciphertextColumn: "secret_ciphertext",
  keyIdColumn: "secret_key_id",
};

/**
 * Stores a new current secret for the endpoint, sealed with its row id as associated data, and
 * returns it in clear: the only time it is ever shown. A rotation first gives the current one an
 * expiry PREVIOUS_SECRET_VALIDITY_HOURS ahead (and drops any older one, already superseded).
 */
export async function issueSigningSecret(
  sql: Queryable,
  keyring: EncryptionKeyring,
  endpointId: string,
  options: { rotate: boolean },
): Promise<string> {
  if (options.rotate) {
    await sql.query("DELETE FROM webhook_endpoint_secrets WHERE endpoint_id = $1 AND expires_at IS NOT NULL", [
      endpointId,
    ]);
    await sql.query(
      `UPDATE webhook_endpoint_secrets SET expires_at = now() + make_interval(hours => $2)
        WHERE endpoint_id = $1 AND expires_at IS NULL`,
      [endpointId, PREVIOUS_SECRET_VALIDITY_HOURS],
    );
    await sql.query(
      "UPDATE webhook_endpoints SET secret_version = secret_version + 1, updated_at = now() WHERE id = $1",
      [endpointId],
    );
  }
  const secret = generateSigningSecret();
  const id = randomUUID();
  const sealed = keyring.seal(secret, id);
  await sql.query(
    "INSERT INTO webhook_endpoint_secrets (id, endpoint_id, secret_ciphertext, secret_key_id) VALUES ($1, $2, $3, $4)",
    [id, endpointId, sealed.ciphertext, sealed.keyId],
  );
  return secret;
}

/** The endpoint's secrets still signing (current first), opened, with when each stops. */
export async function activeSigningSecrets(
  sql: Queryable,
  keyring: EncryptionKeyring,
  endpointIds: readonly string[],
): Promise<Map<string, Array<{ secret: string; expiresAt: Date | null }>>> {
  const { rows } = await sql.query<{
    id: string;
    endpoint_id: string;
    secret_ciphertext: Buffer;
    secret_key_id: string;
    expires_at: Date | null;
  }>(
    `SELECT id, endpoint_id, secret_ciphertext, secret_key_id, expires_at FROM webhook_endpoint_secrets
      WHERE endpoint_id = ANY($1::uuid[]) AND (expires_at IS NULL OR expires_at > now())
      ORDER BY endpoint_id, expires_at DESC NULLS FIRST`,
    [endpointIds],
  );
  const out = new Map<string, Array<{ secret: string; expiresAt: Date | null }>>();
  for (const row of rows) {
    const secret = keyring
      .open({ keyId: row.secret_key_id, ciphertext: row.secret_ciphertext }, row.id)
      .toString("utf8");
    const list = out.get(row.endpoint_id) ?? [];
    list.push({ secret, expiresAt: row.expires_at });
    out.set(row.endpoint_id, list);
  }
  return out;
}
