export { type AccountKind, openMerchantAccounts } from "./accounts.ts";
export { getMerchantBalance } from "./balance.ts";
export { postBankDeposit } from "./bank-deposits.ts";
export {
  postBankPolicyReturn,
  postBankReturnBounced,
  postBankReturnClosed,
  postBankReturnPaid,
} from "./bank-returns.ts";
export {
  type BankSuspense,
  postBankSuspense,
  readBankSuspense,
  releaseBankSuspense,
  returnToBankSuspense,
} from "./bank-suspense.ts";
export { checkLedger, type LedgerCheckResult } from "./check-ledger.ts";
export { type DepositCreditInput, type PostedDepositCredit, postDepositCredits } from "./deposit-credits.ts";
export { postDepositReturn, postPolicyReturn } from "./deposit-returns.ts";
export { postDepositReversal } from "./deposits.ts";
export { exportJournalCsv, JOURNAL_CSV_HEADER } from "./export-csv.ts";
export {
  lockFundingAccounts,
  postFundingFeeRefund,
  releaseUnappliedFunding,
  unappliedFundingHoldId,
} from "./funding-deposits.ts";
export {
  cryptoAllowedSql,
  type HeldDeposit,
  type HeldReason,
  listHeldDeposits,
  releaseHeldDeposit,
  returnHeldDeposit,
} from "./held-deposits.ts";
export { placeHold, releaseHold, settleHold } from "./holds.ts";
export type { EntryKind } from "./journal-entry.ts";
export { postFloatReceipt, postFloatReversal } from "./operator-float.ts";
export { type LedgerCheck, registeredLedgerChecks, registerLedgerCheck } from "./registered-checks.ts";
export { postTransferFee } from "./transfer-fees.ts";
export { postTransferRefund } from "./transfer-refunds.ts";
