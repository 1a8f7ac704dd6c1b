import type { AppDeps } from "@mp/api";
import { openTransferBeneficiary, transferBeneficiaryJson } from "@mp/transfers";
import { Router } from "express";
import { dashboardActor } from "./audit-log.ts";
import { uuidParam } from "./merchant-param.ts";
import { userWith } from "./require-session.ts";

/**
 * A transfer's travel rule data for the platform's operators only (admin), the same as `payments
 * transfers beneficiary`: decrypted for this answer, each reading audited under `dashboard:<email>`.
 */
export function operatorTransferRoutes(deps: Pick<AppDeps, "db" | "encryption">): Router {
  const router = Router();
  router.get("/operator/transfers/:transferId/beneficiary", async (req, res) => {
    const user = userWith(res, "operator");
    const transferId = uuidParam(req, "transferId", "Transfer");
    const view = await openTransferBeneficiary(deps.db, deps.encryption, transferId, dashboardActor(user.email));
    res.set("Cache-Control", "no-store");
    res.json(transferBeneficiaryJson(view));
  });
  return router;
}
