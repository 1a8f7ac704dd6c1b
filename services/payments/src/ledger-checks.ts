import { registerDrainLedgerCheck } from "@mp/liquidation";
import { registerTransferLedgerChecks } from "@mp/transfers";

/**
 * Every domain's own ledger check, registered with checkLedger at the composition root (`serve`
 * and `payments ledger check`) instead of as a side effect of importing a package: which checks
 * run never depends on what happened to be imported first. A domain with its own check adds it here.
 */
export function registerLedgerChecks(): void {
  registerTransferLedgerChecks();
  registerDrainLedgerCheck();
}
