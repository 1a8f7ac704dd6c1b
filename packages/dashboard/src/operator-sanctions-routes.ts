import { formatUsd, unitsToDecimal } from "@mp/core";
import type { Database } from "@mp/db";
import { type HeldDeposit, listHeldDeposits } from "@mp/ledger";
import { listSanctionsMatches, type SanctionsMatch, sanctionsMatchJson } from "@mp/providers";
import { Router } from "express";
import { userWith } from "./require-session.ts";

/**
 * The sanctions page's answer (docs/sanctions.md): the latest matches, and the deposits still held
 * for one, which an operator releases or returns (`payments deposits release|return`).
 */
export function sanctionsView(matches: readonly SanctionsMatch[], held: readonly HeldDeposit[]) {
  return {
    matches: matches.map(sanctionsMatchJson),
    held_deposits: held
      .filter((d) => d.heldReason === "sanctions_match")
      .map((d) => ({
        deposit_id: d.depositId,
        merchant_id: d.merchantId,
        chain: d.chain,
        asset: d.asset,
        amount: unitsToDecimal(BigInt(d.amountRaw), d.decimals),
        net_amount_usd: formatUsd(d.netAmountUsdMicros),
        from_address: d.fromAddress,
        tx_hash: d.txHash,
        confirmed_at: d.confirmedAt.toISOString(),
      })),
  };
}

/** The operator's sanctions matches and the deposits held for one (admin only). */
export function operatorSanctionsRoutes(db: Database): Router {
  const router = Router();
  router.get("/operator/sanctions", async (_req, res) => {
    userWith(res, "operator");
    const [matches, held] = [await listSanctionsMatches(db, { limit: 200 }), await listHeldDeposits(db)];
    res.json(sanctionsView(matches, held));
  });
  return router;
}
