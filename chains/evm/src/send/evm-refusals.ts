import { BaseError, IntrinsicGasTooHighError, IntrinsicGasTooLowError, TransactionTypeNotSupportedError } from "viem";
import { getNodeError } from "viem/utils";

/**
 * Whether an EVM node's refusal of eth_sendRawTransaction can never be lifted for the transaction as
 * signed, whatever the mempool or the account holds. Fee, nonce and funds refusals are not: those
 * can pass later, and the pipeline's rebroadcasts and replacements handle them.
 *
 * EVM JSON-RPC gives no code to tell these apart: geth (and the clients that copy its txpool
 * errors: erigon, bor, anvil, reth) answer every refusal as -32000 with the reason as text, and
 * EIP-1474's -32003 "transaction rejected" covers fee and nonce refusals too. So the error is first
 * read through viem's node-error classes (viem keeps the clients' wordings), then, for the refusals
 * viem has no class for, against the one table below.
 */
export function refusedForGood(error: unknown): boolean {
  if (!(error instanceof BaseError)) return false;
  const node = getNodeError(error, {});
  if (
    node instanceof IntrinsicGasTooLowError ||
    node instanceof IntrinsicGasTooHighError ||
    node instanceof TransactionTypeNotSupportedError
  ) {
    return true;
  }
  const said = `${error.shortMessage} ${error.details}`.toLowerCase();
  return TEXT_ONLY_REFUSALS.some((text) => said.includes(text));
}

/**
 * geth's txpool and signer errors (core/txpool/errors.go, core/types/transaction_signing.go) that
 * viem has no class for and that arrive as text only (-32000).
 */
const TEXT_ONLY_REFUSALS = [
  // core.ErrGasLimit: the transaction's gas is above the block's.
  "exceeds block gas limit",
  // types.ErrInvalidSig, ErrInvalidChainId and the sender recovery failing.
  "invalid sender",
  "invalid signature",
  "invalid chain id",
  "invalid chainid",
  "incorrect chain id",
  // core.ErrTxTypeNotSupported (viem's class knows only "transaction type not valid").
  "transaction type not supported",
  "tx type not supported",
  // txpool.ErrOversizedData, core.ErrMaxInitCodeSizeExceeded.
  "oversized data",
  "max initcode size exceeded",
];
