import type { Database } from "@mp/db";
import {
  listOpenSends,
  type ReconcileTarget,
  readTreasuryBalances,
  treasuryBalanceJson,
  treasurySendJson,
} from "@mp/treasury";
import { Router } from "express";
import { userWith } from "./require-session.ts";

/**
 * The operator's treasury: balances as the signer last read them and the sends not yet confirmed or
 * failed with why they wait (`payments treasury balances|pending`, the same stores and JSON). A
 * send's amount is exact when its asset's decimals are known: from the configured chains, else
 * from a balance of the same asset.
 */
export function operatorTreasuryRoutes(db: Database, chainTargets: () => ReconcileTarget[]): Router {
  const router = Router();
  router.get("/operator/treasury", async (_req, res) => {
    userWith(res, "operator");
    const balances = await readTreasuryBalances(db);
    const sends = await listOpenSends(db);
    const decimals = new Map<string, number>();
    for (const b of balances) decimals.set(`${b.chain}:${b.asset}`, b.decimals);
    for (const t of chainTargets()) for (const a of t.assets) decimals.set(`${t.config.chain}:${a.asset}`, a.decimals);
    res.json({
      balances: balances.map(treasuryBalanceJson),
      pending_sends: sends.map((s) => treasurySendJson(s, decimals.get(`${s.chain}:${s.asset}`))),
    });
  });
  return router;
}
