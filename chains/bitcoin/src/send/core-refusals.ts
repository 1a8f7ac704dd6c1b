/**
 * How Bitcoin Core refuses, by its structured answers: the RPC error code (src/rpc/protocol.h) and,
 * for a transaction the mempool rejects (-26), the reject reason (TxValidationState's reason, the
 * message's first field: "<reason>" or "<reason>, <debug>"). The sender decides on these, never on
 * the debug text.
 */

/** Core's RPC error codes the treasury acts on. */
export const CORE_RPC = {
  /** RPC_MISC_ERROR: getrawtransaction with a blockhash whose block is pruned ("Block not available"). */
  MISC_ERROR: -1,
  /** No such transaction (mempool, index or the given block) or block. */
  INVALID_ADDRESS_OR_KEY: -5,
  /** getblockhash above the tip. */
  INVALID_PARAMETER: -8,
  /** sendrawtransaction: inputs missing or spent, or the fee above maxfeerate (TransactionError). */
  TRANSACTION_ERROR: -25,
  /** sendrawtransaction: the mempool refused it; the reject reason says why. */
  VERIFY_REJECTED: -26,
  /** sendrawtransaction: its outputs are already in the UTXO set (mined). */
  TRANSACTION_ALREADY_IN_CHAIN: -27,
} as const;

/**
 * Reject reasons (validation.cpp, policy.cpp, tx_check.cpp, consensus/tx_verify.cpp) that no fee,
 * wait or mempool change can lift: the transaction as signed is non-standard or invalid. Every other
 * reason ("min relay fee not met", "mempool min fee not met", "insufficient fee", "txn-mempool-conflict",
 * "too-long-mempool-chain", "non-final", "non-BIP68-final", "bad-txns-premature-spend-of-coinbase",
 * "bad-txns-inputs-missingorspent", "mempool full" ...) may pass later and stays the pipeline's to retry.
 */
const REFUSED_FOR_GOOD = new Set([
  // IsStandardTx
  "version",
  "tx-size",
  "scriptsig-size",
  "scriptsig-not-pushonly",
  "scriptpubkey",
  "bare-multisig",
  "dust",
  "multi-op-return",
  "tx-size-small",
  "bad-txns-nonstandard-inputs",
  "bad-witness-nonstandard",
  "tx-witness-unexpected",
  // CheckTransaction and the input checks
  "bad-txns-vin-empty",
  "bad-txns-vout-empty",
  "bad-txns-oversize",
  "bad-txns-vout-negative",
  "bad-txns-vout-toolarge",
  "bad-txns-txouttotal-toolarge",
  "bad-txns-inputs-duplicate",
  "bad-txns-prevout-null",
  "bad-txns-in-belowout",
  "bad-txns-inputvalues-outofrange",
  "bad-txns-fee-outofrange",
  "coinbase",
  // Script checks: a signature that can never verify.
  "mandatory-script-verify-flag-failed",
  "non-mandatory-script-verify-flag",
]);

/**
 * The reject reason of a -26 refusal, from Core's raw message: its first field, without the
 * script error Core appends in parentheses ("mandatory-script-verify-flag-failed (...)").
 */
export function rejectReason(rpcMessage: string): string {
  const [reason = ""] = rpcMessage.split(", ", 1);
  const paren = reason.indexOf(" (");
  return paren < 0 ? reason : reason.slice(0, paren);
}

/** A -26 refusal the transaction as signed can never get past. */
export function refusedForGood(rpcCode: number, rpcMessage: string): boolean {
  return rpcCode === CORE_RPC.VERIFY_REJECTED && REFUSED_FOR_GOOD.has(rejectReason(rpcMessage));
}
