import { type PaymentTarget, unitsToDecimal } from "@mp/core";

/**
 * Solana Pay (transfer request): `solana:<address>?amount=<SOL or token>`, with `&spl-token=<mint>`
 * for a token; the amount a plain decimal of whole units, never rounded.
 */
export function solanaPaymentUri(target: PaymentTarget): string {
  const whole = unitsToDecimal(target.amountRaw, target.decimals, 0);
  const token = target.contractAddress === null ? "" : `&spl-token=${target.contractAddress}`;
  return `solana:${target.address}?amount=${whole}${token}`;
}
