/**
 * Check digits of the bank identifiers the sandbox issues, so its numbers pass the same
 * validation real senders' banks apply.
 */

const ABA_WEIGHTS = [3, 7, 1, 3, 7, 1, 3, 7, 1] as const;

/** ABA routing number checksum: 3·(d1+d4+d7) + 7·(d2+d5+d8) + (d3+d6+d9) ≡ 0 (mod 10). */
export function isValidAbaRoutingNumber(value: string): boolean {
  if (!/^\d{9}$/.test(value)) return false;
  let sum = 0;
  for (let i = 0; i < 9; i++) sum += Number(value[i]) * (ABA_WEIGHTS[i] ?? 0);
  return sum % 10 === 0;
}

/** The ninth digit that makes an 8-digit routing prefix valid. */
export function abaCheckDigit(prefix: string): string {
  if (!/^\d{8}$/.test(prefix)) throw new RangeError("an ABA prefix is 8 digits");
  let sum = 0;
  for (let i = 0; i < 8; i++) sum += Number(prefix[i]) * (ABA_WEIGHTS[i] ?? 0);
  return String((10 - (sum % 10)) % 10);
}

/** ISO 13616 mod-97 of an IBAN-shaped string (country, check digits, BBAN), letters as 10..35. */
function ibanMod97(countryCode: string, checkDigits: string, bban: string): number {
  const rearranged = `${bban}${countryCode}${checkDigits}`.toUpperCase();
  let remainder = 0;
  for (const char of rearranged) {
    const value = /[A-Z]/.test(char) ? String(char.charCodeAt(0) - 55) : char;
    for (const digit of value) remainder = (remainder * 10 + Number(digit)) % 97;
  }
  return remainder;
}

export function ibanCheckDigits(countryCode: string, bban: string): string {
  return String(98 - ibanMod97(countryCode, "00", bban)).padStart(2, "0");
}

export function isValidIban(value: string): boolean {
  const iban = value.replace(/\s+/g, "");
  if (!/^[A-Z]{2}\d{2}[A-Z0-9]{11,30}$/.test(iban)) return false;
  return ibanMod97(iban.slice(0, 2), iban.slice(2, 4), iban.slice(4)) === 1;
}
