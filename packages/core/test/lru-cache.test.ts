import { describe, expect, it } from "vitest";
import { LruCache } from "../src/lru-cache.ts";

describe("LruCache", () => {
  it("keeps the most recently used entries and hands each one it forgets to `evicted`", () => {
    const evicted: string[] = [];
    const cache = new LruCache<number, string>(2, (value) => evicted.push(value));
    let created = 0;
    const get = (key: number) =>
      cache.getOrCreate(key, () => {
        created++;
        return `v${key}`;
      });
    get(1);
    get(2);
    expect(get(1)).toBe("v1"); // 1 is now the most recently used
    get(3); // forgets 2, the least recently used
    expect(evicted).toEqual(["v2"]);
    expect(created).toBe(3);
    expect(cache.peek(2)).toBeUndefined();
    expect([...cache.values()]).toEqual(["v1", "v3"]);
    expect(cache.size).toBe(2);
    get(2);
    expect(evicted).toEqual(["v2", "v1"]);
  });
});
