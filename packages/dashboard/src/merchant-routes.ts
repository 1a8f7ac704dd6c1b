import { listMerchants, type MerchantSummary } from "@mp/api";
import type { Database } from "@mp/db";
import { Router } from "express";
import { userWith } from "./require-session.ts";

export function merchantView(merchant: MerchantSummary) {
  return { id: merchant.id, name: merchant.name, environment: merchant.environment, created_at: merchant.createdAt };
}

/** The merchants the user can open: every one for an admin, their own for anyone else. */
export function merchantRoutes(db: Database): Router {
  const router = Router();
  router.get("/merchants", async (_req, res) => {
    const user = userWith(res, "merchant:read");
    const merchants = await listMerchants(db, user.role === "admin" ? undefined : user.merchantId);
    res.json({ items: merchants.map(merchantView) });
  });
  return router;
}
