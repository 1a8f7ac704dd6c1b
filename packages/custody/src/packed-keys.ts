import type { CompactKeySet } from "./compact-key-set.ts";

/**
 * Adds every key of `packed`, a concatenation of `<characters>:<key>` records (the watch set's page
 * query), to `keys` for `member`; returns how many were new. PostgreSQL's length() counts characters (code
 * points), so a key outside the Basic Multilingual Plane is walked code point by code point; an
 * ASCII key (every address) is read in place from the page's string, never a row object or a slice.
 */
export function addPackedKeys(keys: CompactKeySet, packed: string, member = 0): number {
  // One native search over the page instead of a walk of every key's code points: without a
  // surrogate anywhere, a key's characters are its UTF-16 units.
  const basicPlaneOnly = !SURROGATE.test(packed);
  let added = 0;
  let at = 0;
  while (at < packed.length) {
    // The count's digits read in place: a slice and Number() per key were garbage for nothing.
    let characters = 0;
    let digits = at;
    for (let code = packed.charCodeAt(digits); code >= 48 && code <= 57; code = packed.charCodeAt(++digits)) {
      characters = characters * 10 + (code - 48);
    }
    if (digits === at || digits - at > 15 || packed.charCodeAt(digits) !== 58) {
      throw new Error(`malformed packed key at offset ${at}`);
    }
    const start = digits + 1;
    let end = start + characters;
    if (!basicPlaneOnly) {
      end = start;
      for (let i = 0; i < characters; i++) {
        if (end >= packed.length) {
          end = packed.length + 1;
          break;
        }
        end += (packed.codePointAt(end) ?? 0) > 0xffff ? 2 : 1;
      }
    }
    if (end > packed.length) throw new Error(`packed key at offset ${at} runs past the page`);
    if (keys.addRange(packed, start, end, member)) added++;
    at = end;
  }
  return added;
}

const SURROGATE = /[\uD800-\uDFFF]/;
