/**
 * Bitcoin Core writes amounts in BTC as JSON numbers (`"value": 0.49993020`). A JS number cannot
 * hold most of them exactly, so amounts are converted from the decimal literal itself (see
 * @mp/rpc's exact-number parser, which keeps the literal as a string) with integer arithmetic only.
 */

export const SATOSHIS_PER_BTC = 100_000_000n;
/** Satoshis: fixed by the protocol, and equal to NATIVE_ASSETS.BITCOIN.decimals. */
export const BTC_DECIMALS = 8;
/** 21 million BTC: no single amount can exceed it. */
export const MAX_MONEY_SATOSHIS = 21_000_000n * SATOSHIS_PER_BTC;

// Plain decimal or scientific notation, as JSON allows (tools re-serialising Core output produce
// `5.59e-06`); a leading '+' or bare '.' is not JSON.
const JSON_NUMBER = /^(-?)(0|[1-9]\d*)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/;

/**
 * The exact satoshi count of a BTC amount given as its JSON literal (string) or a JSON integer.
 * Returns null when it is not a non-negative amount with at most 8 significant fractional digits
 * or exceeds 21 million BTC: never rounds.
 */
export function btcToSatoshis(value: string | number): bigint | null {
  if (typeof value === "number") {
    // Only integers reach here as numbers (the exact parser keeps every fractional literal a string).
    if (!Number.isSafeInteger(value) || value < 0) return null;
    const sats = BigInt(value) * SATOSHIS_PER_BTC;
    return sats <= MAX_MONEY_SATOSHIS ? sats : null;
  }
  const match = JSON_NUMBER.exec(value);
  if (!match) return null;
  const [, sign, whole = "0", fraction = "", exponentText = "0"] = match;
  const exponent = Number(exponentText);
  if (!Number.isSafeInteger(exponent) || Math.abs(exponent) > 64) return null;
  // digits * 10^(exponent - fraction.length) BTC = digits * 10^(exponent - fraction.length + 8) sat
  const digits = BigInt(whole + fraction);
  const scale = exponent - fraction.length + BTC_DECIMALS;
  let sats: bigint;
  if (scale >= 0) {
    sats = digits * 10n ** BigInt(scale);
  } else {
    const divisor = 10n ** BigInt(-scale);
    if (digits % divisor !== 0n) return null;
    sats = digits / divisor;
  }
  if (sign === "-" && sats !== 0n) return null;
  return sats <= MAX_MONEY_SATOSHIS ? sats : null;
}

/** The 8-decimal BTC literal Bitcoin Core writes for an amount: 49993020n -> "0.49993020". */
export function satoshisToBtcString(satoshis: bigint): string {
  if (satoshis < 0n) throw new RangeError("amount must not be negative");
  const whole = satoshis / SATOSHIS_PER_BTC;
  const fraction = (satoshis % SATOSHIS_PER_BTC).toString().padStart(BTC_DECIMALS, "0");
  return `${whole}.${fraction}`;
}
