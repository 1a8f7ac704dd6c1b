export { isValidAbaRoutingNumber, isValidIban } from "./banking/bank-identifiers.ts";
export type {
  BankAccountRequest,
  BankAccountStatus,
  BankDepositInstructions,
  BankingProvider,
  OpenedBankAccount,
} from "./banking/banking-provider.ts";
export {
  createSandboxBankingProvider,
  SANDBOX_BANK,
  SANDBOX_BANKING_DECLINE_REASON,
  SANDBOX_BANKING_DECLINE_WORD,
  sandboxInstructions,
} from "./banking/sandbox-banking-provider.ts";
export {
  createStatementBankingProvider,
  type StatementBankSettings,
  statementInstructions,
} from "./banking/statement-banking-provider.ts";
export { detectStatementFormat, parseStatement } from "./banking/statements/parse-statement.ts";
export { STATEMENT_CSV_COLUMNS } from "./banking/statements/parse-statement-csv.ts";
export {
  type StatementFormat,
  StatementFormatError,
  type StatementLine,
} from "./banking/statements/statement-line.ts";
export type {
  KycProfileRequest,
  KycProvider,
  KycReviewOutcome,
  KycReviewReceipt,
  KycReviewRequest,
  VerificationTier,
} from "./kyc/kyc-provider.ts";
export {
  createManualKycProvider,
  decideManualReview,
  findManualReview,
  listManualReviews,
  type ManualDecision,
  type ManualReview,
} from "./kyc/manual-kyc-provider.ts";
export {
  createSandboxKycProvider,
  SANDBOX_KYC_MAGIC_VALUES,
  SANDBOX_KYC_REASONS,
  sandboxKycDecision,
} from "./kyc/sandbox-kyc-provider.ts";
export type { Rate, RateProvider } from "./rates/rate-provider.ts";
export { createSandboxRateProvider, SANDBOX_RATES } from "./rates/sandbox-rate-provider.ts";
