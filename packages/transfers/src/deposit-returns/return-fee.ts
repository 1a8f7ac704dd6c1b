/**
 * The network fee a return takes from the returned amount, in the deposit's smallest units: the
 * RETURN_NETWORK_FEE_USD figure converted at the rate the deposit was valued at (its gross USD for
 * its amount), rounded up. The treasury pays the chain's real fee; the payer gets the rest.
 */
export function returnFeeRaw(input: { amountRaw: bigint; amountUsdMicros: bigint; feeUsdMicros: bigint }): bigint {
  if (input.feeUsdMicros <= 0n) return 0n;
  // A deposit valued at nothing (no rate): the fee is worth all of it.
  if (input.amountUsdMicros <= 0n) return input.amountRaw;
  const scaled = input.feeUsdMicros * input.amountRaw;
  return (scaled + input.amountUsdMicros - 1n) / input.amountUsdMicros;
}

/** The treasury send's idempotency key of a deposit's return: one per deposit, a new one only after a failed send. */
export function returnSendKey(depositId: string, attempt: number): string {
  return attempt <= 1 ? `deposit-return:${depositId}` : `deposit-return:${depositId}#${attempt}`;
}
