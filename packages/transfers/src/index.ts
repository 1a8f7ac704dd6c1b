export { bankPayoutRequest, recordBankPayoutIntent } from "./bank-payout-execution.ts";
export { type BankPayoutDeps, executeBankPayoutsOnce } from "./bank-payout-pass.ts";
export {
  closeBankReturn,
  type ReturnAccount,
  sendBankReturnAgain,
} from "./bank-returns/bank-return-actions.ts";
export { executeBankReturnsOnce } from "./bank-returns/bank-return-pass.ts";
export { sealStatementPayer } from "./bank-returns/bank-return-payout.ts";
export {
  BANK_RETURN_ORIGINS,
  BANK_RETURN_STATES,
  type BankReturn,
  type BankReturnOrigin,
  type BankReturnState,
  bankReturnById,
  bankReturnJson,
  bankReturnOfLine,
  CENT_MICROS,
  listBankReturns,
  openBankReturn,
} from "./bank-returns/bank-return-store.ts";
export { transferProblems } from "./check-transfers.ts";
export { returnLateFunding } from "./deposit-returns/late-funding-returns.ts";
export { returnFeeRaw, returnSendKey } from "./deposit-returns/return-fee.ts";
export { merchantReturnPolicy, RETURN_POLICIES, type ReturnPolicy } from "./deposit-returns/return-policy.ts";
export {
  type DepositReturn,
  type DepositReturnState,
  type ReturnRequest,
  sendDepositReturn,
  sendDepositReturnTo,
} from "./deposit-returns/send-deposit-return.ts";
export { settleDepositReturns } from "./deposit-returns/settle-deposit-returns.ts";
export { applyBankCredit, lockBankFundingTarget } from "./fund-from-bank-credit.ts";
export { applyFundingDeposits, unfundReversedDeposits } from "./fund-from-crypto-deposits.ts";
export { provisionFundingAddresses } from "./funding-address.ts";
export type { FundingWallet, FundingWallets, ReservedFundingSlot } from "./funding-wallets.ts";
export { assertAboveMinimum, type ChainAmount, minimumOf } from "./quote-minimums.ts";
export {
  type FeeSchedule,
  type PricedAsset,
  type PricedQuote,
  type PricingInput,
  priceQuote,
  RATE_DECIMALS,
} from "./quote-pricing.ts";
export {
  feeScheduleOf,
  findQuote,
  insertQuote,
  type NewQuote,
  QUOTE_COLUMNS,
  type QuoteRow,
  toMoney,
  toQuoteResource,
} from "./quote-store.ts";
export {
  type BankMask,
  bankMaskOf,
  type Money,
  type QuoteResource,
  type QuoteTerms,
  type Rate,
  type TransferResource,
  type UsBankAccount,
} from "./resources.ts";
export {
  applyPayoutLine,
  exportStatementPayouts,
  matchPayoutLine,
  type PayoutDebtor,
  type PayoutExport,
  type PayoutLineMatch,
} from "./statement-payouts.ts";
export {
  DESTINATION_TYPES,
  type DestinationType,
  FUNDING_MODES,
  type FundingMode,
  INTENT_STATUSES,
  type IntentStatus,
  SOURCE_METHODS,
  type SourceMethod,
  TRANSFER_STATUSES,
  type TransferStatus,
} from "./statuses.ts";
export { executeTransfersOnce, startTransferExecutor, type TransferPass } from "./transfer-executor.ts";
export { assertTransferAllowed } from "./transfer-kyc-gate.ts";
export { registerTransferLedgerChecks } from "./transfer-ledger-check.ts";
export { cancelTransfer, createTransfer, expireDueTransfers } from "./transfer-lifecycle.ts";
export { MAX_START_ATTEMPTS, retryDelaySeconds } from "./transfer-retries.ts";
export {
  findIntentOfTransfer,
  findTransfer,
  getTransfer,
  type IntentRow,
  SEEN_STATUS,
  SEEN_TRANSFER_COLUMNS,
  TRANSFER_FROM,
  type TransferRow,
  toTransferResource,
} from "./transfer-store.ts";
export type { EndedSend, TransferPayout, TransferTreasury } from "./transfer-treasury.ts";
export { type TransfersReport, type TransfersReportTotals, transfersReport } from "./transfers-report.ts";
export {
  BENEFICIARY_TYPES,
  type Beneficiary,
  openTransferBeneficiary,
  type TransferBeneficiaryView,
  transferBeneficiaryJson,
  travelRuleBeneficiary,
} from "./travel-rule.ts";
