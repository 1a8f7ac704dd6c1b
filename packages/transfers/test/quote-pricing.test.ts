import { describe, expect, it } from "vitest";
import { type PricingInput, priceQuote } from "../src/quote-pricing.ts";

const USD = { asset: "USD", decimals: 6, quantum: 10_000n, usdRate: "1" };
const USDC = { asset: "USDC", decimals: 6, quantum: 1n, usdRate: "1" };
const BTC = { asset: "BTC", decimals: 8, quantum: 1n, usdRate: "65000.00" };

const input = (overrides: Partial<PricingInput>): PricingInput => ({
  source: USD,
  destination: USDC,
  amount: { side: "source", value: 100_000_000n },
  spreadBps: 50,
  fee: { fixedUsdMicros: 1_000_000n, bps: 30 },
  ...overrides,
});

describe("priceQuote", () => {
  it("prices USD -> USDC from the source side: fee up to the cent, spread off the rate, destination down", () => {
    const q = priceQuote(input({}));
    // fee = 1.00 + 0.30% of 100.00 = 1.30 USD; net 98.70 at 0.995 = 98.206500 USDC.
    expect(q.rateValue).toBe("0.995");
    expect(q.feeAmount).toBe(1_300_000n);
    expect(q.destinationAmount).toBe(98_206_500n);
    expect(q.sourceUsdMicros).toBe(100_000_000n);
    expect(q.feeUsdMicros).toBe(1_300_000n);
  });

  it("rounds a fee of a fraction of a cent up to the next cent", () => {
    const q = priceQuote(
      input({ amount: { side: "source", value: 10_010_000n }, fee: { fixedUsdMicros: 0n, bps: 30 } }),
    );
    // 0.30% of 10.01 = 0.03003 -> 0.04
    expect(q.feeAmount).toBe(40_000n);
  });

  it("prices from the destination side: the smallest whole-cent source that delivers at least the amount", () => {
    const q = priceQuote(input({ amount: { side: "destination", value: 50_000_000n } }));
    expect(q.destinationAmount).toBe(50_000_000n);
    expect(q.sourceAmount % 10_000n).toBe(0n);
    const net = ((q.sourceAmount - q.feeAmount) * 995_000_000_000n) / 10n ** 12n;
    expect(net >= 50_000_000n).toBe(true);
    // One cent less would not cover it.
    const less = priceQuote(input({ amount: { side: "source", value: q.sourceAmount - 10_000n } }));
    expect(less.destinationAmount < 50_000_000n).toBe(true);
  });

  it("prices BTC from USD with the rate cut at 12 digits", () => {
    const q = priceQuote(input({ destination: BTC, fee: { fixedUsdMicros: 0n, bps: 0 } }));
    // 1/65000 * 0.995 = 0.0000153076923076... -> 0.000015307692
    expect(q.rateValue).toBe("0.000015307692");
    // 100 USD * rate = 0.0015307692 BTC -> 153076 sat (rounded down)
    expect(q.destinationAmount).toBe(153_076n);
  });

  it("refuses amounts that are not whole cents, zero, or below the fee", () => {
    expect(() => priceQuote(input({ amount: { side: "source", value: 1_000_001n } }))).toThrow(/amount/);
    expect(() => priceQuote(input({ amount: { side: "source", value: 0n } }))).toThrow(/amount/);
    expect(() => priceQuote(input({ amount: { side: "source", value: 1_000_000n } }))).toThrow(/fee/);
  });
});
