import type { CompactKeySet } from "./compact-key-set.ts";

/**
 * Adds every key of `packed`, a concatenation of `<characters>:<key>` records (the watch set's page
 * query), to `keys`; returns how many were new. PostgreSQL's length() counts characters (code
 * points), so a key outside the Basic Multilingual Plane is walked code point by code point; an
 * ASCII key (every address) is read in place from the page's string, never a row object or a slice.
 */
export function addPackedKeys(keys: CompactKeySet, packed: string): number {
  let added = 0;
  let at = 0;
  while (at < packed.length) {
    const colon = packed.indexOf(":", at);
    const characters = colon < 0 ? Number.NaN : Number(packed.slice(at, colon));
    if (!Number.isSafeInteger(characters) || characters < 0) {
      throw new Error(`malformed packed key at offset ${at}`);
    }
    const start = colon + 1;
    let end = start;
    for (let i = 0; i < characters; i++) {
      if (end >= packed.length) throw new Error(`packed key at offset ${at} runs past the page`);
      end += (packed.codePointAt(end) ?? 0) > 0xffff ? 2 : 1;
    }
    if (keys.addRange(packed, start, end)) added++;
    at = end;
  }
  return added;
}
