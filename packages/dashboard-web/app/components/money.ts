/**
 * Every amount the dashboard shows goes through formatMoney: the server's exact decimal string (or
 * smallest units with their decimals), rounded for people to the asset's own precision, with the
 * locale's separators. Digits are handled as strings and bigint, never as a float, so nothing is lost
 * before the one rounding this makes for display. The exact figure stays in the details views.
 */

/** Fractional digits an asset is shown with: `min` always, up to `max` where the amount has them. */
export interface Precision {
  min: number;
  max: number;
}

const CENTS: Precision = { min: 2, max: 2 };
/** What a coin of 18 (or 9) decimals shows: six digits tell any real amount apart. */
const COIN: Precision = { min: 2, max: 6 };

const PRECISION: Readonly<Record<string, Precision>> = {
  USD: CENTS,
  EUR: CENTS,
  GBP: CENTS,
  USDC: CENTS,
  "USDC.e": CENTS,
  USDT: CENTS,
  BTC: { min: 2, max: 8 },
  ETH: COIN,
  SOL: COIN,
  TRX: COIN,
  POL: COIN,
  BNB: COIN,
  CELO: COIN,
};

/** Currencies written with their sign in front rather than their code behind. */
const SIGNS: Readonly<Record<string, string>> = { USD: "$" };

export function precisionOf(asset: string): Precision {
  return PRECISION[asset.toUpperCase()] ?? COIN;
}

const DECIMAL = /^(-)?(\d+)(?:\.(\d+))?$/;

const separators = new Map<string, { group: string; decimal: string }>();

/** The locale's group and decimal separators (en-US: "," and "."), asked of Intl once per locale. */
export function separatorsOf(locale?: string): { group: string; decimal: string } {
  const key = locale ?? "";
  let found = separators.get(key);
  if (!found) {
    const parts = new Intl.NumberFormat(locale).formatToParts(11111.5);
    found = {
      group: parts.find((p) => p.type === "group")?.value ?? ",",
      decimal: parts.find((p) => p.type === "decimal")?.value ?? ".",
    };
    separators.set(key, found);
  }
  return found;
}

function group(whole: string, separator: string): string {
  return whole.replace(/\B(?=(\d{3})+(?!\d))/g, separator);
}

/**
 * `amount` (a plain decimal string, e.g. "13745.620000") rounded half away from zero to `max`
 * fractional digits, trailing zeros trimmed down to `min`: { negative, whole, fraction, tiny } where
 * `tiny` says a non-zero amount rounded to zero (shown as "< 0.01", never as a plain zero).
 */
export function roundDecimal(
  amount: string,
  precision: Precision,
): { negative: boolean; whole: string; fraction: string; tiny: boolean } | undefined {
  const match = DECIMAL.exec(amount.trim());
  if (!match) return undefined;
  const [, sign, wholeDigits = "0", fractionDigits = ""] = match;
  const kept = fractionDigits.slice(0, precision.max).padEnd(precision.max, "0");
  let scaled = BigInt(wholeDigits + kept);
  if ((fractionDigits[precision.max] ?? "0") >= "5") scaled += 1n;
  const base = 10n ** BigInt(precision.max);
  let fraction = precision.max > 0 ? (scaled % base).toString().padStart(precision.max, "0") : "";
  while (fraction.length > precision.min && fraction.endsWith("0")) fraction = fraction.slice(0, -1);
  const isZero = scaled === 0n;
  const exactZero = !/[1-9]/.test(wholeDigits + fractionDigits);
  return {
    negative: sign === "-" && !exactZero,
    whole: (scaled / base).toString(),
    fraction,
    tiny: isZero && !exactZero,
  };
}

/**
 * An amount for people: "$13,745.62", "0.0025 BTC", "9.999577 ETH", "1,250.10 USDC". `amount` is the
 * server's decimal string in whole units of `asset`; a string that is not one is shown as it is.
 */
export function formatMoney(amount: string, asset: string, options: { locale?: string } = {}): string {
  const precision = precisionOf(asset);
  const rounded = roundDecimal(amount, precision);
  const code = asset.toUpperCase();
  const sign = SIGNS[code];
  if (!rounded) return sign ? `${sign}${amount}` : `${amount} ${asset}`;
  const { group: groupSeparator, decimal } = separatorsOf(options.locale);
  // The smallest step shown, for an amount that rounds to zero: "< $0.01", "> -0.000001 ETH".
  const step = `0${decimal}${"1".padStart(precision.max, "0")}`;
  const digits = rounded.tiny
    ? step
    : `${group(rounded.whole, groupSeparator)}${rounded.fraction ? `${decimal}${rounded.fraction}` : ""}`;
  const body = sign ? `${sign}${digits}` : `${digits} ${asset}`;
  if (rounded.tiny) return rounded.negative ? `> -${body}` : `< ${body}`;
  return rounded.negative ? `-${body}` : body;
}

/**
 * `raw` smallest units (an integer string, e.g. wei) of an asset with `decimals` as the exact
 * decimal string in whole units: ("9999576777995230690", 18) -> "9.99957677799523069".
 */
export function unitsToDecimal(raw: string, decimals: number): string | undefined {
  const match = /^(-)?(\d+)$/.exec(raw.trim());
  if (!match) return undefined;
  const [, sign = "", digits = "0"] = match;
  const padded = digits.padStart(decimals + 1, "0");
  const whole = padded.slice(0, padded.length - decimals).replace(/^0+(?=\d)/, "");
  const fraction = decimals > 0 ? padded.slice(padded.length - decimals).replace(/0+$/, "") : "";
  return `${sign}${whole}${fraction ? `.${fraction}` : ""}`;
}

/** Smallest units for people, as formatMoney; `raw` shown as it is when it is not an integer. */
export function formatUnits(raw: string, decimals: number, asset: string, options: { locale?: string } = {}): string {
  const amount = unitsToDecimal(raw, decimals);
  return amount === undefined ? `${raw} (smallest units of ${asset})` : formatMoney(amount, asset, options);
}

/** Compares two decimal strings exactly (negative, zero or positive as `a` is below, equal to or above `b`). */
export function compareDecimals(a: string, b: string): number {
  const [wholeA = "0", fractionA = ""] = a.split(".");
  const [wholeB = "0", fractionB = ""] = b.split(".");
  const width = Math.max(fractionA.length, fractionB.length);
  const difference = BigInt(wholeA + fractionA.padEnd(width, "0")) - BigInt(wholeB + fractionB.padEnd(width, "0"));
  return difference === 0n ? 0 : difference < 0n ? -1 : 1;
}
