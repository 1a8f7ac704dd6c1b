import { type AppDeps, listVirtualAccounts, paginationQuery, parseOrThrow, VIRTUAL_ACCOUNT_STATUSES } from "@mp/api";
import { type Request, type Response, Router } from "express";
import { z } from "zod";
import { v1Route, visibleMerchant } from "./v1-route.ts";

const listQuery = paginationQuery.extend({
  customer_id: z.uuid("must be a customer id").optional(),
  status: z.enum(VIRTUAL_ACCOUNT_STATUSES).optional(),
});

/**
 * The virtual accounts page: the merchant's accounts (a customer's when asked), masked, which /v1
 * has no list of; one account (full instructions while ACTIVE) and its bank deposits are the /v1
 * routes themselves.
 */
export function virtualAccountPageRoutes(deps: AppDeps): Router {
  const router = Router();
  router.use(
    v1Route(deps, "getVirtualAccount", "merchant:read"),
    v1Route(deps, "listVirtualAccountDeposits", "merchant:read"),
  );
  router.get("/merchants/:merchantId/virtual-accounts", async (req: Request, res: Response) => {
    const { merchantId } = await visibleMerchant(deps.db, req, res, "merchant:read");
    const query = parseOrThrow(listQuery, req.query ?? {}, "query");
    res.set("Cache-Control", "no-store");
    res.json(await listVirtualAccounts(deps.db, merchantId, query));
  });
  return router;
}
