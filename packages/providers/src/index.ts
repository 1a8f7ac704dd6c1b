export { describeReturnReason } from "./banking/ach-return-reasons.ts";
export { isValidAbaRoutingNumber, isValidIban } from "./banking/bank-identifiers.ts";
export type {
  BankAccountRequest,
  BankAccountStatus,
  BankDepositInstructions,
  BankingProvider,
  BankPayoutRequest,
  BankPayoutStatus,
  OpenedBankAccount,
  SentBankPayout,
} from "./banking/banking-provider.ts";
export {
  buildPain001,
  PAIN001_NAMESPACE,
  type Pain001Batch,
  type Pain001Payment,
  pain001ControlSum,
} from "./banking/payouts/pain001.ts";
export {
  createSandboxBankingProvider,
  SANDBOX_BANK,
  SANDBOX_BANKING_DECLINE_REASON,
  SANDBOX_BANKING_DECLINE_WORD,
  SANDBOX_PAYOUT_MAGIC,
  sandboxInstructions,
} from "./banking/sandbox-banking-provider.ts";
export {
  createStatementBankingProvider,
  payoutEndToEndId,
  type StatementBankSettings,
  statementInstructions,
} from "./banking/statement-banking-provider.ts";
export { detectStatementFormat, parseStatement } from "./banking/statements/parse-statement.ts";
export { STATEMENT_CSV_COLUMNS, STATEMENT_CSV_PAYER_COLUMNS } from "./banking/statements/parse-statement-csv.ts";
export {
  type StatementFormat,
  StatementFormatError,
  type StatementLine,
  type StatementPayer,
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
  manualReviewJson,
} from "./kyc/manual-kyc-provider.ts";
export {
  createSandboxKycProvider,
  SANDBOX_KYC_MAGIC_VALUES,
  SANDBOX_KYC_REASONS,
  sandboxKycDecision,
} from "./kyc/sandbox-kyc-provider.ts";
export { type RowsPerValueGauge, registerRowsPerValueGauge } from "./metrics/rows-per-value-gauge.ts";
export { type CachedRateProviderOptions, createCachedRateProvider } from "./rates/cached-rate-provider.ts";
export { CHAINLINK_MAINNET_FEEDS } from "./rates/chainlink-mainnet-feeds.ts";
export {
  aggregatorV3Abi,
  type ChainlinkFeed,
  type ChainlinkRateProviderOptions,
  chainlinkFeedSchema,
  chainlinkFeedsSchema,
  createChainlinkRateProvider,
  DEFAULT_CHAINLINK_GRACE_SECONDS,
} from "./rates/chainlink-rate-provider.ts";
export { type CombinedRateProviderOptions, createCombinedRateProvider } from "./rates/combined-rate-provider.ts";
export {
  createKrakenTickerRateProvider,
  KRAKEN_API_URL,
  KRAKEN_DEFAULT_ASSETS,
  type KrakenTickerRateProviderOptions,
} from "./rates/kraken-ticker-rate-provider.ts";
export { checkRateBounds, type RateBounds, rateBoundsSchema } from "./rates/rate-bounds.ts";
export { compareRates, medianRate, parseRate, type ScaledRate, spreadExceeds } from "./rates/rate-decimal.ts";
export type { Rate, RateProvider } from "./rates/rate-provider.ts";
export { RateUnavailableError, type RateUnavailableReason } from "./rates/rate-unavailable-error.ts";
export { createSandboxRateProvider, SANDBOX_RATES } from "./rates/sandbox-rate-provider.ts";
export { DEFAULT_PAR_BAND_BPS, roundToPar, type StablecoinPar } from "./rates/stablecoin-par.ts";
export {
  type AddressScreening,
  createDisabledScreening,
  type SanctionsHit,
  type ScreeningDescription,
} from "./sanctions/address-screening.ts";
export { createListScreeningProvider, type ListScreeningOptions } from "./sanctions/list-screening-provider.ts";
export {
  type DestinationToScreen,
  refuseSanctionedDestination,
} from "./sanctions/refuse-sanctioned-destination.ts";
export { sanctionsAddressKey } from "./sanctions/sanctions-address-key.ts";
export { parseSanctionsList, SanctionsListFormatError } from "./sanctions/sanctions-list-file.ts";
export {
  listSanctionsMatches,
  recordSanctionsMatch,
  SANCTIONS_MATCH_CONTEXTS,
  type SanctionsMatch,
  type SanctionsMatchContext,
  type SanctionsMatchInput,
  sanctionsMatchJson,
} from "./sanctions/sanctions-matches.ts";
export { registerSanctionsMetrics } from "./sanctions/sanctions-metrics.ts";
export { SANDBOX_SANCTIONED_ADDRESSES } from "./sanctions/sandbox-sanctioned-addresses.ts";
