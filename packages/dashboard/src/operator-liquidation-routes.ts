import type { Database } from "@mp/db";
import { listFailingDrainsForOperator } from "@mp/liquidation";
import { Router } from "express";
import { userWith } from "./require-session.ts";

/** Failing drains the operator's page shows at most. */
export const FAILING_DRAINS_LIMIT = 200;

/**
 * The failing liquidation drains of every merchant (admin only), as `payments liquidation` reads
 * them: failed, or awaiting funds after a failed try, with the last error and the next try.
 */
export function operatorLiquidationRoutes(db: Database): Router {
  const router = Router();
  router.get("/operator/liquidation-drains/failing", async (_req, res) => {
    userWith(res, "operator");
    res.set("Cache-Control", "no-store");
    res.json({ items: await listFailingDrainsForOperator(db, FAILING_DRAINS_LIMIT) });
  });
  return router;
}
