import { type AppDeps, paginationQuery, parseOrThrow } from "@mp/api";
import { NotFoundError } from "@mp/core";
import { type Request, type Response, Router } from "express";
import { z } from "zod";
import { findQuotePageItem, listQuotes, QUOTE_STATES } from "./quote-list.ts";
import { type AuditOf, v1Route, visibleMerchant } from "./v1-route.ts";

const listQuery = paginationQuery.extend({
  customer_id: z.uuid("must be a customer id").optional(),
  state: z.enum(QUOTE_STATES).optional(),
});
const quoteParam = z.object({ quoteId: z.uuid("must be a quote id") });

const audited =
  (action: string, objectType: string): AuditOf =>
  (answer) => ({ action, objectType, objectId: String((answer.data as { id: string }).id) });

/**
 * The quotes page and the transfers page's "New payout": the merchant's quotes (which /v1 has no
 * list of) with their state and spread; a quote and its transfer are made by the /v1 routes
 * themselves (v1Route: the same rules, prices and checks as an API key's), by the roles that pay out
 * (transfers:write), each audited; the transfer with the page's X-Idempotency-Key.
 */
export function quotePageRoutes(deps: AppDeps): Router {
  const router = Router();
  router.use(
    v1Route(deps, "createQuote", "transfers:write", audited("quote.created", "quote")),
    v1Route(deps, "createTransfer", "transfers:write", audited("transfer.created", "transfer")),
  );
  router.get("/merchants/:merchantId/quotes", async (req: Request, res: Response) => {
    const { merchantId } = await visibleMerchant(deps.db, req, res, "merchant:read");
    const query = parseOrThrow(listQuery, req.query ?? {}, "query");
    res.json(await listQuotes(deps.db, merchantId, query));
  });
  router.get("/merchants/:merchantId/quotes/:quoteId", async (req: Request, res: Response) => {
    const { merchantId } = await visibleMerchant(deps.db, req, res, "merchant:read");
    const { quoteId } = parseOrThrow(quoteParam, { quoteId: req.params.quoteId }, "path");
    const quote = await findQuotePageItem(deps.db, merchantId, quoteId);
    if (!quote) throw new NotFoundError("Quote");
    res.json(quote);
  });
  return router;
}
