import type { AppDeps } from "@mp/api";
import { Router } from "express";
import type { AuditOf } from "./v1-route.ts";
import { v1Route } from "./v1-route.ts";

const audited =
  (action: string): AuditOf =>
  (answer) => ({ action, objectType: "payment_request", objectId: String((answer.data as { id: string }).id) });

/**
 * The merchant's payment requests page: the /v1 routes themselves under
 * /dashboard/api/merchants/{id} (v1Route), so the dashboard holds no second copy of a rule. Every
 * role reads; creating and canceling is the business's (payment_requests:write: not a viewer's),
 * each recorded in the audit log.
 */
export function paymentRequestPageRoutes(deps: AppDeps): Router {
  const router = Router();
  router.use(
    v1Route(deps, "listPaymentRequests", "merchant:read"),
    v1Route(deps, "getPaymentRequest", "merchant:read"),
    v1Route(deps, "createPaymentRequest", "payment_requests:write", audited("payment_request.created")),
    v1Route(deps, "cancelPaymentRequest", "payment_requests:write", audited("payment_request.canceled")),
  );
  return router;
}
