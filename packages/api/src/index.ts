export { createApp } from "./app.ts";
export {
  createApiKey,
  type Environment,
  type ListedApiKey,
  listApiKeys,
  revokeApiKey,
  revokeMerchantApiKey,
} from "./auth/api-keys.ts";
export { keysRevoked } from "./auth/key-revocations.ts";
export { type MerchantBalance, merchantBalance } from "./balance/merchant-balance.ts";
export { rfc3339 } from "./customers/customer-schemas.ts";
export { PROVISION_CUSTOMER_JOB, provisionCustomer } from "./customers/provision-customer-job.ts";
export {
  type DepositSearch,
  depositVolumeByDay,
  listDeposits,
  listDepositsAfter,
} from "./deposits/deposit-store.ts";
export type { AddressDeriver, AppDeps, DerivedAddress, IndexerState } from "./deps.ts";
export { errorHandler, renderError } from "./http/error-handler.ts";
export { keepIdleConnections } from "./http/idle-connections.ts";
export { paginationQuery } from "./http/pagination.ts";
export { perClientRateLimit } from "./http/rate-limit.ts";
export type { AnyRoute, HandlerContext } from "./http/route.ts";
export { parseOrThrow } from "./http/validate.ts";
export { runIdempotent, sweepIdempotencyKeys, validateIdempotencyKey } from "./idempotency/run-idempotent.ts";
export {
  type CreatedMerchant,
  createMerchant,
  findMerchantEnvironment,
  listMerchants,
  type MerchantSummary,
  setMerchantDisabled,
} from "./merchants/merchant-store.ts";
export { buildOpenApi } from "./openapi/build-openapi.ts";
// The /v1 resources' types (z.infer of their schemas), for clients of the JSON such as the dashboard.
export type * from "./resources.ts";
export { allRoutes } from "./routes.ts";
export { sendQueuedFaucetTransfer } from "./sandbox/sandbox-faucet-outbox.ts";
export { defineListQuery } from "./shared/list-page.ts";
export {
  KYC_AND_BANKING_QUEUES,
  type KycAndBankingWorkerDeps,
  registerKycAndBankingWorkers,
} from "./verification/kyc-and-banking-workers.ts";
export {
  checkVerificationReviewNow,
  decideVerificationReview,
  openSubmissionForOperator,
} from "./verification/operator-review.ts";
export {
  assignStatementLine,
  importBankStatement,
  listStatementImports,
  listUnmatchedStatementLines,
  returnStatementLine,
  type StatementImport,
  type StatementImportResult,
  type StoredStatementLine,
  statementImportJson,
} from "./virtual-accounts/import-bank-statement.ts";
export { VIRTUAL_ACCOUNT_STATUSES } from "./virtual-accounts/virtual-account-schemas.ts";
export { listVirtualAccounts } from "./virtual-accounts/virtual-account-store.ts";
export { fundingWallets } from "./wallets/funding-wallets.ts";
export { WalletSlots } from "./wallets/wallet-slots.ts";
