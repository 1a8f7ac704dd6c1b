/** A transfer's states (migrations/0121_transfers.sql); the database refuses a move that is not a transition. */
export const TRANSFER_STATUSES = [
  "AWAITING_MERCHANT_FUNDING",
  "FUNDED",
  "PROCESSING",
  "COMPLETED",
  "CANCELED",
  "EXPIRED",
  "FAILED",
  "REFUNDED",
] as const;
export type TransferStatus = (typeof TRANSFER_STATUSES)[number];
export const INTENT_STATUSES = ["PENDING", "FUNDED", "EXPIRED", "CANCELED"] as const;
export type IntentStatus = (typeof INTENT_STATUSES)[number];
/** TRANSFER_JIT: the customer pays just in time; BALANCE: the merchant's available USD. */
export const FUNDING_MODES = ["TRANSFER_JIT", "BALANCE"] as const;
export type FundingMode = (typeof FUNDING_MODES)[number];
export const SOURCE_METHODS = ["BANK_TRANSFER", "CRYPTO_DEPOSIT", "BALANCE"] as const;
export type SourceMethod = (typeof SOURCE_METHODS)[number];
export const DESTINATION_TYPES = ["CRYPTO_ADDRESS", "US_BANK_ACCOUNT"] as const;
export type DestinationType = (typeof DESTINATION_TYPES)[number];
