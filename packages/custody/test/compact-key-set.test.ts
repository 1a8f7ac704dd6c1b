import { randomBytes } from "node:crypto";
import bs58 from "bs58";
import { describe, expect, it } from "vitest";
import { CompactKeySet } from "../src/compact-key-set.ts";

const evmKey = () => `0x${randomBytes(20).toString("hex")}`;

describe("CompactKeySet", () => {
  it("holds EVM keys exactly, in either letter case", () => {
    const set = new CompactKeySet({ hexKeys: true });
    const key = "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266";
    expect(set.has(key)).toBe(false);
    expect(set.add(key)).toBe(true);
    expect(set.add(key)).toBe(false);
    expect(set.add("0xF39FD6E51AAD88F6F4CE6AB8827279CFFFB92266")).toBe(false);
    expect(set.size).toBe(1);
    expect(set.has("0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266")).toBe(true);
    expect(set.has("0xf39fd6e51aad88f6f4ce6ab8827279cfffb92267")).toBe(false);
    expect(set.has("0xf39fd6e51aad88f6f4ce6ab8827279cfffb9226")).toBe(false);
  });

  it("keeps keys that are not canonical EVM hex exact through its fallback", () => {
    const set = new CompactKeySet({ hexKeys: true });
    const odd = "0xzz9fd6e51aad88f6f4ce6ab8827279cfffb92266";
    expect(set.add(odd)).toBe(true);
    expect(set.add("not an address")).toBe(true);
    expect(set.has(odd)).toBe(true);
    expect(set.has("not an address")).toBe(true);
    expect(set.has("0x009fd6e51aad88f6f4ce6ab8827279cfffb92266")).toBe(false);
    expect(set.size).toBe(2);
  });

  it("holds case-significant base58 keys exactly", () => {
    const set = new CompactKeySet({ hexKeys: false });
    set.add("TUEZSdKsoDHQMeZwihtdoBiN46zxhGWYdH");
    expect(set.has("TUEZSdKsoDHQMeZwihtdoBiN46zxhGWYdH")).toBe(true);
    expect(set.has("tuezsdksodhqmezwihtdobin46zxhgwydh")).toBe(false);
    expect(set.has("TUEZSdKsoDHQMeZwihtdoBiN46zxhGWYd")).toBe(false);
    set.add("é-not-ascii");
    expect(set.has("é-not-ascii")).toBe(true);
  });

  it("grows to many keys without losing or inventing any", () => {
    const evm = new CompactKeySet({ hexKeys: true });
    const solana = new CompactKeySet({ hexKeys: false });
    const evmKeys = Array.from({ length: 60_000 }, evmKey);
    const solanaKeys = Array.from({ length: 20_000 }, () => bs58.encode(randomBytes(32)));
    for (const key of evmKeys) evm.add(key);
    for (const key of solanaKeys) solana.add(key);
    expect(evm.size).toBe(evmKeys.length);
    expect(solana.size).toBe(solanaKeys.length);
    expect(evmKeys.every((key) => evm.has(key))).toBe(true);
    expect(solanaKeys.every((key) => solana.has(key))).toBe(true);
    for (let i = 0; i < 5_000; i++) {
      expect(evm.has(evmKey())).toBe(false);
      expect(solana.has(bs58.encode(randomBytes(32)))).toBe(false);
    }
    // 21 bytes per EVM key in the arena plus a table at most half full: far below a Set<string>.
    expect(evm.byteLength).toBeLessThan(60_000 * 40);
  });

  it("built in the room reserve() made: no resize while it fills, exact keys, then grows past it", () => {
    const evmKeys = Array.from({ length: 10_000 }, evmKey);
    const evm = new CompactKeySet({ hexKeys: true });
    evm.reserve(evmKeys.length, 42 * evmKeys.length);
    const reserved = evm.byteLength;
    // 21 arena bytes per key and the smallest power-of-two table at most half full.
    expect(reserved).toBe(21 * 10_000 + 4 * 32_768);
    for (const key of evmKeys) evm.add(key);
    expect(evm.byteLength).toBe(reserved);
    expect(evmKeys.every((key) => evm.has(key))).toBe(true);
    const late = evmKey();
    expect(evm.add(late)).toBe(true);
    expect(evm.has(late)).toBe(true);
    expect(evm.size).toBe(10_001);

    const base58 = Array.from({ length: 2_000 }, () => bs58.encode(randomBytes(32)));
    const solana = new CompactKeySet({ hexKeys: false });
    solana.reserve(
      base58.length,
      base58.reduce((sum, key) => sum + key.length, 0),
    );
    const solanaReserved = solana.byteLength;
    for (const key of base58) solana.add(key);
    expect(solana.byteLength).toBe(solanaReserved);
    expect(base58.every((key) => solana.has(key))).toBe(true);
    expect(solana.has(bs58.encode(randomBytes(32)))).toBe(false);
  });

  it("adds a key from inside a longer string as the same key, compact or not", () => {
    const set = new CompactKeySet({ hexKeys: true });
    const key = "0xF39FD6E51AAD88F6F4CE6AB8827279CFFFB92266";
    expect(set.addRange(`..${key}..`, 2, 44)).toBe(true);
    expect(set.has(key.toLowerCase())).toBe(true);
    expect(set.addRange(`x${key.toLowerCase()}`, 1, 43)).toBe(false);
    expect(set.addRange("[not hex]", 1, 8)).toBe(true);
    expect(set.has("not hex")).toBe(true);
    expect(set.has("[not hex]")).toBe(false);
    expect(set.size).toBe(2);
  });

  it("keeps an EVM key once for several members, each member seeing only what it added", () => {
    const set = new CompactKeySet({ hexKeys: true });
    const key = evmKey();
    const odd = "not an address";
    expect(set.add(key, 0)).toBe(true);
    expect(set.has(key, 0)).toBe(true);
    expect(set.has(key, 1)).toBe(false);
    const bytes = set.byteLength;
    expect(set.add(key.toUpperCase().replace("0X", "0x"), 1)).toBe(true);
    expect(set.add(key, 1)).toBe(false);
    expect(set.has(key, 1)).toBe(true);
    expect(set.add(odd, 7)).toBe(true);
    expect(set.has(odd, 7)).toBe(true);
    expect(set.has(odd, 0)).toBe(false);
    expect(set.add(odd, 0)).toBe(true);
    expect(set.size).toBe(2);
    expect([set.sizeOf(0), set.sizeOf(1), set.sizeOf(7)]).toEqual([2, 1, 1]);
    expect(set.byteLength).toBe(bytes);
    // A table grown and rehashed keeps every key's members.
    const more = Array.from({ length: 5_000 }, evmKey);
    for (const k of more) set.add(k, 3);
    expect(set.has(key, 0) && set.has(key, 1) && !set.has(key, 3)).toBe(true);
    expect(more.every((k) => set.has(k, 3) && !set.has(k, 0))).toBe(true);

    expect(() => set.add(key, 8)).toThrow(/no member 8/);
    expect(() => new CompactKeySet({ hexKeys: false }).add("abc", 1)).toThrow(/no member 1/);
  });
});
