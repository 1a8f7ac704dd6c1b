import { registerLedgerCheck } from "@mp/ledger";
import { fundingDepositProblems } from "./check-funding-deposits.ts";
import { transferProblems } from "./check-transfers.ts";

/**
 * checkLedger runs the transfers' checks wherever this package is loaded: each transfer's holds, fee
 * and refund against its state (check-transfers.ts), deposits to funding addresses against their
 * fees and reservations (check-funding-deposits.ts). The ledger cannot import the transfers, which
 * post to it. Imported for its effect by index.ts, so any importer of @mp/transfers (and of
 * @mp/api, which imports it) has them.
 */
registerLedgerCheck("transfers", transferProblems);
registerLedgerCheck("transfer funding deposits", fundingDepositProblems);
