import { parseOrThrow } from "@mp/api";
import { NotFoundError } from "@mp/core";
import type { Database } from "@mp/db";
import { recordAudit } from "@mp/db";
import { merchantReturnPolicy, RETURN_POLICIES } from "@mp/transfers";
import { Router } from "express";
import { z } from "zod";
import { dashboardActor } from "./audit-log.ts";
import { merchantOfPath } from "./v1-route.ts";

const PolicyBody = z.strictObject({ return_policy: z.enum(RETURN_POLICIES) });

/**
 * A merchant's return policy (docs/returns.md) on the dashboard: the spec has no merchant settings
 * resource under /v1, so it is set here, by the merchant's owner (or the operator's admin), audited
 * as `merchant.return_policy_changed` with what it was and what it became. Every role reads it.
 */
export function returnPolicyRoutes(db: Database): Router {
  const router = Router();

  router.get("/merchants/:merchantId/return-policy", async (req, res) => {
    const { merchantId } = merchantOfPath(req, res, "merchant:read");
    const stored = await merchantReturnPolicy(db, merchantId);
    if (!stored) throw new NotFoundError("Merchant");
    res.json({ merchant_id: merchantId, return_policy: stored.policy });
  });

  router.put("/merchants/:merchantId/return-policy", async (req, res) => {
    const { user, merchantId } = merchantOfPath(req, res, "settings:write");
    const body = parseOrThrow(PolicyBody, req.body ?? {}, "body");
    const stored = await db.tx(async (client) => {
      const changed = await merchantReturnPolicy(client, merchantId, body.return_policy);
      if (changed && changed.before !== changed.policy) {
        await recordAudit(client, {
          actor: dashboardActor(user.email),
          action: "merchant.return_policy_changed",
          objectType: "merchant",
          objectId: merchantId,
          details: { from: changed.before, to: changed.policy },
        });
      }
      return changed;
    });
    if (!stored) throw new NotFoundError("Merchant");
    res.json({ merchant_id: merchantId, return_policy: stored.policy });
  });

  return router;
}
