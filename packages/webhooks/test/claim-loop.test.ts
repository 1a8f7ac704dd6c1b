import { silentLogger } from "@mp/core";
import { describe, expect, it } from "vitest";
import { runClaimLoop } from "../src/claim-loop.ts";
import { createWakeUp } from "../src/wake-up.ts";

/**
 * The claim loop tells a claim whether the database must be asked (a wake: NOTIFY, enqueued, slots
 * freed; a poll; a claim that filled its slots) or it was only nudged by finished deliveries, whose
 * endpoints a claim answered meanwhile may have refilled (delivery-worker.ts then skips the query).
 */
describe("claim loop", () => {
  it("asks the database on a wake, not after nudges alone", async () => {
    const wakes = createWakeUp();
    const calls: boolean[] = [];
    let stopping = false;
    let release: (() => void) | undefined;
    const loop = runClaimLoop({
      free: () => 10,
      claim: (_free, ask) => {
        calls.push(ask);
        return new Promise<number>((resolve) => {
          release = () => resolve(0);
        });
      },
      stopping: () => stopping,
      wakes,
      pollIntervalMs: 60_000,
      logger: silentLogger(),
    });
    const claimNumber = async (count: number) => {
      while (calls.length < count) await new Promise((resolve) => setTimeout(resolve, 1));
    };
    await claimNumber(1);
    wakes.nudge(); // while the first claim runs
    release?.();
    await claimNumber(2);
    wakes.wake(); // while the second runs
    release?.();
    await claimNumber(3);
    release?.(); // nothing came meanwhile: the loop waits
    await new Promise((resolve) => setImmediate(resolve));
    expect(calls).toEqual([true, false, true]);
    wakes.nudge(); // ends the wait, asks nothing
    await claimNumber(4);
    stopping = true;
    release?.();
    wakes.wake(); // as stop() does
    await loop;
    expect(calls).toEqual([true, false, true, false]);
  });

  it("tells a poll that ran out from a wait cut short", async () => {
    const wakes = createWakeUp();
    expect(await wakes.wait(1)).toBe(true);
    const cut = wakes.wait(60_000);
    wakes.nudge();
    expect(await cut).toBe(false);
  });
});
