import { type AppDeps, type DepositResource, listDeposits, type MerchantBalance, merchantBalance } from "@mp/api";
import { Router } from "express";
import { visibleMerchant } from "./v1-route.ts";

/** How many of the newest deposits the overview lists (the deposits page, later, pages through all). */
export const RECENT_DEPOSITS = 10;

/** The overview's answer: the balance, the newest deposits and how many there are in all. */
export function overviewView(balance: MerchantBalance, deposits: { items: DepositResource[]; total: number }) {
  return { balance, recent_deposits: deposits.items, total_deposits: deposits.total };
}

/**
 * A merchant's overview: the balance exactly as `GET /v1/balance` computes it (the same function)
 * and the newest deposits as `GET /v1/deposits` lists them, live confirmations included.
 */
export function overviewRoutes(deps: Pick<AppDeps, "db" | "rates" | "indexerStates">): Router {
  const router = Router();
  router.get("/merchants/:merchantId/overview", async (req, res) => {
    const { merchantId } = await visibleMerchant(deps.db, req, res, "merchant:read");
    const states = await deps.indexerStates();
    const [balance, deposits] = [
      await merchantBalance(deps.db, deps.rates, merchantId),
      await listDeposits(deps.db, merchantId, { limit: RECENT_DEPOSITS, page: 1 }, states),
    ];
    res.json(overviewView(balance, deposits));
  });
  return router;
}
