import { z } from "zod";

/** A list file failed to parse: its name and why (the start refuses; a reload keeps the old list). */
export class SanctionsListFormatError extends Error {
  constructor(file: string, reason: string) {
    super(`sanctions list ${file}: ${reason}`);
    this.name = "SanctionsListFormatError";
  }
}

const jsonList = z.array(z.string().min(1));
/** Addresses are printable, without spaces; anything else is a wrong file, not an address. */
const ADDRESS_LINE = /^[0-9A-Za-z]{20,100}$/;

/**
 * The addresses of one list file in the format of the public per-asset OFAC lists
 * (`sanctioned_addresses_<ASSET>.txt`: one address a line; `.json`: a JSON array of strings).
 * Blank lines and `#` comments are allowed in the text form, so an operator may annotate a list.
 */
export function parseSanctionsList(file: string, text: string): string[] {
  if (file.endsWith(".json")) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (error) {
      throw new SanctionsListFormatError(file, `not JSON (${String(error)})`);
    }
    const list = jsonList.safeParse(parsed);
    if (!list.success) throw new SanctionsListFormatError(file, "expected a JSON array of address strings");
    return list.data.map((address) => checked(file, address.trim()));
  }
  return text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== "" && !line.startsWith("#"))
    .map((line) => checked(file, line));
}

function checked(file: string, address: string): string {
  if (!ADDRESS_LINE.test(address)) throw new SanctionsListFormatError(file, `not an address: ${address.slice(0, 60)}`);
  return address;
}
