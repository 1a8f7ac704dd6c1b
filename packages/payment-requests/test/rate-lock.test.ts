import { describe, expect, it } from "vitest";
import { priceOptions } from "../src/rate-lock.ts";

describe("rate lock pricing", () => {
  const option = { contractAddress: null, destinationId: "d", address: "a" };
  it("a USD amount at the asset's rate, rounded up to its smallest unit; in the asset itself, as is", () => {
    const [btc, usdc] = priceOptions(
      { currency: "USD", currencyDecimals: 2, amount: 2500n },
      [
        { ...option, chain: "BITCOIN", asset: "BTC", decimals: 8 },
        { ...option, chain: "BSC", asset: "USDC", decimals: 18 },
      ],
      new Map([
        ["BTC", "65000.00"],
        ["USDC", "1"],
      ]),
    );
    // 25 / 65000 BTC = 38461.538... sat -> 38462.
    expect(btc?.amountDue).toBe(38_462n);
    expect(usdc?.amountDue).toBe(25n * 10n ** 18n);
    const [own] = priceOptions(
      { currency: "USDC", currencyDecimals: 6, amount: 25_000_000n },
      [{ ...option, chain: "BSC", asset: "USDC", decimals: 18 }],
      new Map(),
    );
    expect(own).toMatchObject({ amountDue: 25n * 10n ** 18n, usdRate: null });
  });
});
