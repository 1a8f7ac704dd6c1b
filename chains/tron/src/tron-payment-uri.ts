import { type PaymentTarget, unitsToDecimal } from "@mp/core";

/**
 * The address URI Tron wallets read: `tron:<address>?amount=<TRX or token>`, with
 * `&token=<contract>` for a token; the amount a plain decimal of whole units, never rounded.
 */
export function tronPaymentUri(target: PaymentTarget): string {
  const whole = unitsToDecimal(target.amountRaw, target.decimals, 0);
  const token = target.contractAddress === null ? "" : `&token=${target.contractAddress}`;
  return `tron:${target.address}?amount=${whole}${token}`;
}
