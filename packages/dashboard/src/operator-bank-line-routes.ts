import { assignStatementLine, parseOrThrow, returnStatementLine } from "@mp/api";
import type { Database } from "@mp/db";
import { type Request, type Response, Router } from "express";
import { z } from "zod";
import { dashboardActor } from "./audit-log.ts";
import { userWith } from "./require-session.ts";

const lineId = (req: Request) =>
  parseOrThrow(z.object({ lineId: z.uuid("must be a UUID") }), req.params, "path").lineId;

const Assign = z.union([
  z.strictObject({ virtual_account_id: z.uuid("must be a UUID") }),
  z.strictObject({ intent_id: z.uuid("must be a UUID") }),
]);
const Return = z.strictObject({ reason: z.string().trim().min(1, "a return needs a reason").max(500) });

/**
 * The bank suspense from the reconciliation page (admin only), as `payments bank assign|return`
 * does it (the same functions: out of bank_suspense in one transaction, audited as bank.assign /
 * bank.return with this user as the operator): an unmatched credit line assigned to a virtual
 * account or to a transfer's bank funding intent, or any unmatched line returned to the payer with
 * a reason. A line no longer unmatched is 409, an unknown one 404.
 */
export function operatorBankLineRoutes(db: Database): Router {
  const router = Router();
  router.post("/finance/bank-lines/:lineId/assign", async (req: Request, res: Response) => {
    const user = userWith(res, "operator");
    const id = lineId(req);
    const body = parseOrThrow(Assign, req.body ?? {}, "body");
    const target = "intent_id" in body ? { intentId: body.intent_id } : { virtualAccountId: body.virtual_account_id };
    res.json(await assignStatementLine(db, { lineId: id, operator: dashboardActor(user.email), ...target }));
  });
  router.post("/finance/bank-lines/:lineId/return", async (req: Request, res: Response) => {
    const user = userWith(res, "operator");
    const id = lineId(req);
    const { reason } = parseOrThrow(Return, req.body ?? {}, "body");
    res.json(await returnStatementLine(db, { lineId: id, reason, operator: dashboardActor(user.email) }));
  });
  return router;
}
