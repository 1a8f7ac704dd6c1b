import { registerLedgerCheck } from "@mp/ledger";
import { bankReturnProblems } from "./bank-returns/check-bank-returns.ts";
import { fundingDepositProblems } from "./check-funding-deposits.ts";
import { transferProblems } from "./check-transfers.ts";

/**
 * Adds the transfers' checks to checkLedger's: each transfer's holds, fee and refund against its
 * state (check-transfers.ts), deposits to funding addresses against their fees and reservations
 * (check-funding-deposits.ts), bank returns against their entries (bank-returns/check-bank-returns.ts). The ledger cannot import the transfers, which post to it. Called by
 * the composition root (services/payments/src/ledger-checks.ts: `serve` and `ledger check`), never
 * as a side effect of importing this package; calling it again changes nothing.
 */
export function registerTransferLedgerChecks(): void {
  registerLedgerCheck("transfers", transferProblems);
  registerLedgerCheck("transfer funding deposits", fundingDepositProblems);
  registerLedgerCheck("bank returns", bankReturnProblems);
}
