import { describe, expect, it } from "vitest";
import { mapBounded } from "../src/index.ts";

const tick = () => new Promise((resolve) => setTimeout(resolve, 1));

describe("mapBounded", () => {
  it("keeps item order, whatever order the work finishes in, with at most `limit` in flight", async () => {
    let inFlight = 0;
    let most = 0;
    const results = await mapBounded([5, 1, 4, 2, 3], 2, async (item, index) => {
      inFlight++;
      most = Math.max(most, inFlight);
      for (let i = 0; i < item; i++) await tick();
      inFlight--;
      return `${index}:${item}`;
    });
    expect(results).toEqual(["0:5", "1:1", "2:4", "3:2", "4:3"]);
    expect(most).toBe(2);
  });

  it("rejects with the first failure and starts no new work after it", async () => {
    const started: number[] = [];
    const run = mapBounded([1, 2, 3, 4, 5, 6], 2, async (item) => {
      started.push(item);
      await tick();
      if (item === 2) throw new Error("boom");
      return item;
    });
    await expect(run).rejects.toThrow("boom");
    await tick();
    await tick();
    expect(started.length).toBeLessThan(6);
  });

  it("answers [] for no items and refuses a limit below 1", async () => {
    await expect(mapBounded([], 3, async () => 1)).resolves.toEqual([]);
    await expect(mapBounded([1], 0, async () => 1)).rejects.toThrow(RangeError);
  });
});
