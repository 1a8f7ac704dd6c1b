/**
 * The one JSON parser of every chain client: JSON with exact numbers. JSON.parse turns `0.1` into
 * the nearest double and rounds a u64 above 2^53 (lamports, sun, satoshis in some answers), and
 * Node 20 has no reviver access to the source text. So before parsing every number literal that a
 * double may not hold exactly (a fraction, an exponent, or more than 15 digits) is rewritten into a
 * JSON string holding the same characters, whatever its key; integers that are surely safe stay
 * numbers. Schemas then read an amount as a number or a digit string. One linear pass that jumps
 * over string contents, then the native JSON.parse (fast on multi-MB blocks, unlike a JS parser).
 */

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const MINUS = 0x2d;
const PLUS = 0x2b;
const DOT = 0x2e;
const DIGIT_0 = 0x30;
const DIGIT_9 = 0x39;
const LOWER_E = 0x65;
const UPPER_E = 0x45;
/** Up to 15 digits (with sign) is below 2^53: JSON.parse keeps it exact. */
const MAX_EXACT_INTEGER_LITERAL = 15;

/** Rewrites inexact number literals of a JSON text into strings; returns the text unchanged otherwise. */
export function quoteInexactNumbers(text: string): string {
  let parts: string[] | null = null;
  let copiedUpTo = 0;
  let i = 0;
  const length = text.length;
  while (i < length) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      i = endOfString(text, i + 1);
      continue;
    }
    if (c === MINUS || (c >= DIGIT_0 && c <= DIGIT_9)) {
      const start = i;
      let exactInteger = true;
      i++;
      while (i < length) {
        const d = text.charCodeAt(i);
        if (d >= DIGIT_0 && d <= DIGIT_9) {
          i++;
        } else if (d === DOT || d === LOWER_E || d === UPPER_E || d === PLUS || d === MINUS) {
          exactInteger = false;
          i++;
        } else {
          break;
        }
      }
      if (!exactInteger || i - start > MAX_EXACT_INTEGER_LITERAL) {
        parts ??= [];
        parts.push(text.slice(copiedUpTo, start), '"', text.slice(start, i), '"');
        copiedUpTo = i;
      }
      continue;
    }
    i++;
  }
  if (parts === null) return text;
  parts.push(text.slice(copiedUpTo));
  return parts.join("");
}

/** Index just past the closing quote of the string whose content starts at `from`. */
function endOfString(text: string, from: number): number {
  let searchFrom = from;
  for (;;) {
    const quote = text.indexOf('"', searchFrom);
    // Unterminated: let JSON.parse report it.
    if (quote === -1) return text.length;
    let backslashes = 0;
    for (let b = quote - 1; b >= from && text.charCodeAt(b) === BACKSLASH; b--) backslashes++;
    if (backslashes % 2 === 0) return quote + 1;
    searchFrom = quote + 1;
  }
}

/**
 * Parses JSON keeping every fractional or exponent number as its literal string
 * (`{"value":0.1}` -> `{ value: "0.1" }`). Throws SyntaxError like JSON.parse.
 */
export function parseJsonExact(text: string): unknown {
  return JSON.parse(quoteInexactNumbers(text));
}

/** A number written into JSON exactly as given, e.g. a BTC amount "0.00012345". */
export class JsonNumberLiteral {
  readonly literal: string;
  constructor(literal: string) {
    if (!/^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$/.test(literal)) {
      throw new RangeError(`not a JSON number: ${literal}`);
    }
    this.literal = literal;
  }
}

export type JsonValue =
  | string
  | number
  | boolean
  | null
  | JsonNumberLiteral
  | readonly JsonValue[]
  | { readonly [key: string]: JsonValue };

/** JSON.stringify that writes JsonNumberLiteral values as bare numbers. Compact, like Core. */
export function stringifyJson(value: JsonValue): string {
  if (value instanceof JsonNumberLiteral) return value.literal;
  if (value === null || typeof value !== "object") return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map((item: JsonValue) => stringifyJson(item)).join(",")}]`;
  const fields: string[] = [];
  for (const [key, item] of Object.entries(value as { readonly [key: string]: JsonValue })) {
    fields.push(`${JSON.stringify(key)}:${stringifyJson(item)}`);
  }
  return `{${fields.join(",")}}`;
}
