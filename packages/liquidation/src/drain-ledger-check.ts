import { registerLedgerCheck } from "@mp/ledger";
import { drainProblems } from "./check-drains.ts";

/** Adds the drains' check to checkLedger (called at the composition root: services/payments/src/ledger-checks.ts). */
export function registerDrainLedgerCheck(): void {
  registerLedgerCheck("liquidation drains", drainProblems);
}
