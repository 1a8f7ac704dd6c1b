// The checks' own modules, not the packages' indexes: `payments ledger check` loads only them and
// @mp/ledger, never the rate providers and chain clients the rest of those packages import.
import { registerDrainLedgerCheck } from "@mp/liquidation/ledger-check";
import { registerTransferLedgerChecks } from "@mp/transfers/ledger-check";

/**
 * Every domain's own ledger check, registered with checkLedger at the composition root (`serve`
 * and `payments ledger check`) instead of as a side effect of importing a package: which checks
 * run never depends on what happened to be imported first. A domain with its own check adds it here.
 */
export function registerLedgerChecks(): void {
  registerTransferLedgerChecks();
  registerDrainLedgerCheck();
}
