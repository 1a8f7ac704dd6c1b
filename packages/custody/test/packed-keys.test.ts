import { describe, expect, it } from "vitest";
import { CompactKeySet } from "../src/compact-key-set.ts";
import { addPackedKeys } from "../src/packed-keys.ts";

/** What the watch set's page query writes: `<characters>:<key>` per key, characters as PostgreSQL counts them. */
const pack = (keys: string[]) => keys.map((key) => `${[...key].length}:${key}`).join("");

describe("addPackedKeys", () => {
  it("adds every key of a page, colons, digits and characters outside the BMP included", () => {
    const keys = ["abc", "12:34", "", "💸:x", "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266", "abc"];
    const set = new CompactKeySet({ hexKeys: false });
    expect(addPackedKeys(set, pack(keys))).toBe(5);
    for (const key of keys) expect(set.has(key)).toBe(true);
    expect(set.has("12")).toBe(false);
    expect(set.has("💸")).toBe(false);
    expect(set.size).toBe(5);
  });

  it("refuses a page that is cut short or malformed instead of adding a wrong key", () => {
    const set = new CompactKeySet({ hexKeys: false });
    expect(() => addPackedKeys(set, "5:abc")).toThrow(/runs past the page/);
    expect(() => addPackedKeys(set, "3:abcx")).toThrow(/malformed/);
    expect(() => addPackedKeys(set, "abc")).toThrow(/malformed/);
  });
});
