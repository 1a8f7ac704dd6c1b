import { registerLedgerCheck } from "@mp/ledger";
import { transferProblems } from "./check-transfers.ts";

/**
 * checkLedger runs the transfers' check (check-transfers.ts) wherever this package is loaded: the
 * ledger cannot import the transfers, which post to it. Imported for its effect by index.ts, so any
 * importer of @mp/transfers (and of @mp/api, which imports it) has it.
 */
registerLedgerCheck("transfers", transferProblems);
