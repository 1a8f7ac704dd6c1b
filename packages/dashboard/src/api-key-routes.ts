import { createApiKey, keysRevoked, type ListedApiKey, listApiKeys, revokeMerchantApiKey } from "@mp/api";
import { NotFoundError } from "@mp/core";
import type { Database, Queryable } from "@mp/db";
import { recordAudit } from "@mp/db";
import { Router } from "express";
import { dashboardActor } from "./audit-log.ts";
import { uuidParam } from "./merchant-param.ts";
import type { DashboardUser } from "./roles.ts";
import { merchantOfPath, visibleMerchant } from "./v1-route.ts";

export function keyView(key: ListedApiKey) {
  return {
    id: key.id,
    prefix: key.prefix,
    environment: key.environment,
    created_at: key.createdAt,
    revoked_at: key.revokedAt,
  };
}

/** A key just created: its secret leaves once, in this answer. */
export function createdKeyView(created: Awaited<ReturnType<typeof createApiKey>>) {
  return { id: created.id, prefix: created.prefix, environment: created.environment, api_key: created.apiKey };
}

function auditKey(
  sql: Queryable,
  user: DashboardUser,
  action: "api_key.created" | "api_key.revoked",
  key: { id: string; prefix: string },
  merchantId: string,
): Promise<void> {
  return recordAudit(sql, {
    actor: dashboardActor(user.email),
    action,
    objectType: "api_key",
    objectId: key.id,
    details: { merchant_id: merchantId, prefix: key.prefix },
  });
}

/** A merchant's API keys: the same functions `payments keys` and `/v1` authentication use. */
export function apiKeyRoutes(db: Database): Router {
  const router = Router();

  router.get("/merchants/:merchantId/api-keys", async (req, res) => {
    const { merchantId } = await visibleMerchant(db, req, res, "merchant:read");
    res.json({ items: (await listApiKeys(db, merchantId)).map(keyView) });
  });

  router.post("/merchants/:merchantId/api-keys", async (req, res) => {
    const { user, merchantId, environment } = await visibleMerchant(db, req, res, "keys:write");
    const created = await db.tx(async (client) => {
      const key = await createApiKey(client, merchantId, environment);
      await auditKey(client, user, "api_key.created", key, merchantId);
      return key;
    });
    // The secret leaves once, in this answer; no cache may keep it.
    res.set("Cache-Control", "no-store");
    res.status(201).json(createdKeyView(created));
  });

  router.post("/merchants/:merchantId/api-keys/:keyId/revoke", async (req, res) => {
    const { user, merchantId } = merchantOfPath(req, res, "keys:write");
    const keyId = uuidParam(req, "keyId", "API key");
    const revoked = await db.tx(async (client) => {
      const key = await revokeMerchantApiKey(client, merchantId, keyId);
      if (!key) return undefined;
      await auditKey(client, user, "api_key.revoked", key, merchantId);
      return key;
    });
    // Committed: this process's API stops trusting keys it verified before (key-revocations.ts).
    keysRevoked();
    if (!revoked) throw new NotFoundError("API key");
    res.json(keyView(revoked));
  });

  return router;
}
