import { LruCache } from "@mp/core";
import type { Database } from "@mp/db";
import type { EncryptionKeyring } from "@mp/encryption";
import type { ClaimedDelivery } from "./claimed-delivery.ts";
import { activeSigningSecrets } from "./endpoint-secrets.ts";
import { WebhookSigner } from "./signing.ts";

/** The opened signing secrets of the endpoints of claimed deliveries. */
export interface EndpointSigners {
  /** Opens the secrets of the rows' endpoints not held yet (at their current secret_version). */
  load(rows: readonly ClaimedDelivery[]): Promise<void>;
  /** The signers of the row's endpoint still valid at `at` (empty when not loaded). */
  validAt(row: ClaimedDelivery, at: Date): WebhookSigner[];
}

/**
 * Opened secrets per endpoint and rotation (keyed by secret_version): a rotation is seen at the next
 * claim, without asking the database for each delivery.
 */
export function createEndpointSigners(db: Database, keyring: EncryptionKeyring): EndpointSigners {
  const signers = new LruCache<string, Array<{ signer: WebhookSigner; expiresAt: Date | null }>>(10_000);
  const keyOf = (row: ClaimedDelivery) => `${row.endpoint_id}:${row.secret_version}`;
  return {
    async load(rows) {
      const missing = [...new Set(rows.filter((r) => !signers.peek(keyOf(r))).map((r) => r.endpoint_id))];
      if (missing.length === 0) return;
      const opened = await activeSigningSecrets(db, keyring, missing);
      for (const row of rows) {
        const list = opened.get(row.endpoint_id);
        if (!list) continue;
        signers.getOrCreate(keyOf(row), () =>
          list.map((s) => ({ signer: new WebhookSigner(s.secret), expiresAt: s.expiresAt })),
        );
      }
    },
    validAt(row, at) {
      return (signers.peek(keyOf(row)) ?? [])
        .filter((k) => k.expiresAt === null || k.expiresAt > at)
        .map((k) => k.signer);
    },
  };
}
