export {
  type AttemptState,
  type AttemptStatus,
  type ChainSender,
  InsufficientTreasuryFundsError,
  type SendOrder,
  type SignedAttempt,
  type StoredAttempt,
} from "./chain-sender.ts";
