import { describe, expect, it } from "vitest";
import { createCachedRateProvider, createSandboxRateProvider, type RateProvider } from "../src/index.ts";

/** The sandbox provider (rates valid 60 s) on a clock the test moves, counting the calls it gets. */
function counted() {
  let ms = Date.UTC(2026, 10, 25, 12);
  const now = () => new Date(ms);
  const sandbox = createSandboxRateProvider({ now });
  const calls = { rateFor: 0, listRates: 0 };
  const inner: RateProvider = {
    name: sandbox.name,
    listRates: () => {
      calls.listRates += 1;
      return sandbox.listRates();
    },
    rateFor: (asset) => {
      calls.rateFor += 1;
      return sandbox.rateFor(asset);
    },
  };
  return { inner, calls, now, advance: (seconds: number) => (ms += seconds * 1000) };
}

describe("cached rate provider", () => {
  it("reuses an answer for maxAgeMs, then asks again", async () => {
    const { inner, calls, now, advance } = counted();
    const cached = createCachedRateProvider(inner, { maxAgeMs: 5_000, now });
    const first = await cached.rateFor("BTC");
    advance(4);
    expect(await cached.rateFor("BTC")).toBe(first);
    expect(calls.rateFor).toBe(1);
    advance(1);
    expect((await cached.rateFor("BTC")).expiresAt).toEqual(new Date(now().getTime() + 60_000));
    expect(calls.rateFor).toBe(2);
  });

  it("never serves a rate past its own expiresAt, however long maxAgeMs is", async () => {
    const { inner, calls, now, advance } = counted();
    const cached = createCachedRateProvider(inner, { maxAgeMs: 600_000, now });
    await cached.rateFor("ETH");
    await cached.listRates();
    advance(59);
    await cached.rateFor("ETH");
    await cached.listRates();
    expect(calls).toEqual({ rateFor: 1, listRates: 1 });
    advance(1);
    expect((await cached.rateFor("ETH")).expiresAt.getTime()).toBeGreaterThan(now().getTime());
    expect((await cached.listRates())[0]?.expiresAt.getTime()).toBeGreaterThan(now().getTime());
    expect(calls).toEqual({ rateFor: 2, listRates: 2 });
  });

  it("fills single rates from a list, and caches no failure", async () => {
    const { inner, calls, now } = counted();
    const cached = createCachedRateProvider(inner, { now });
    await cached.listRates();
    expect((await cached.rateFor("SOL")).rate).toBe("150.00");
    expect(calls.rateFor).toBe(0);
    await expect(cached.rateFor("DOGE")).rejects.toThrow("No USD rate");
    await expect(cached.rateFor("DOGE")).rejects.toThrow("No USD rate");
    expect(calls.rateFor).toBe(2);
  });
});
