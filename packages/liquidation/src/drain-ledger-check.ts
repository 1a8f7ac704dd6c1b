import { registerLedgerCheck } from "@mp/ledger";
import { drainProblems } from "./check-drains.ts";

/** checkLedger runs the drains' check wherever this package is loaded (index.ts imports this file). */
registerLedgerCheck("liquidation drains", drainProblems);
