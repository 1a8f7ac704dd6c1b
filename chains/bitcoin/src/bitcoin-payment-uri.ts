import { type PaymentTarget, unitsToDecimal } from "@mp/core";

/** BIP-21: `bitcoin:<address>?amount=<BTC>`, the amount a plain decimal of whole BTC, never rounded. */
export function bitcoinPaymentUri(target: PaymentTarget): string {
  return `bitcoin:${target.address}?amount=${unitsToDecimal(target.amountRaw, target.decimals, 0)}`;
}
