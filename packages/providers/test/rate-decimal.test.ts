import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compareRates, DEFAULT_PAR_BAND_BPS, medianRate, roundToPar, spreadExceeds } from "../src/index.ts";
import { parseRate, rateUnits } from "../src/rates/rate-decimal.ts";

const decimal = fc
  .tuple(fc.bigInt({ min: 0n, max: 10n ** 12n }), fc.integer({ min: 0, max: 18 }))
  .map(([units, scale]) => {
    const text = units.toString().padStart(scale + 1, "0");
    return scale === 0 ? text : `${text.slice(0, -scale)}.${text.slice(-scale)}`;
  });

describe("exact rate arithmetic", () => {
  it("takes the median, and the exact mean of the middle two for an even count", () => {
    expect(medianRate(["61018.6", "60997"])).toBe("61007.8");
    expect(medianRate(["1", "2"])).toBe("1.5");
    expect(medianRate(["0.35", "0.1", "0.2"])).toBe("0.2");
    expect(medianRate(["0.000000000000000001", "0.000000000000000002"])).toBe("0.0000000000000000015");
    fc.assert(
      fc.property(decimal, decimal, (a, b) => {
        const [x, y, m] = [parseRate(a), parseRate(b), parseRate(medianRate([a, b]))];
        if (!x || !y || !m) return false;
        const scale = Math.max(x.scale, y.scale, m.scale);
        return 2n * rateUnits(m, scale) === rateUnits(x, scale) + rateUnits(y, scale);
      }),
    );
  });

  it("measures the spread against the median in whole basis points, without floats", () => {
    // 1 / 100.5 = 99.50 bps.
    expect(spreadExceeds(["100", "101"], 99)).toBe(true);
    expect(spreadExceeds(["100", "101"], 100)).toBe(false);
    // Kraken's BTC/USD mid and CoinGecko's price one second apart: 21.6 / 61007.8 = 3.54 bps.
    expect(spreadExceeds(["61018.6", "60997"], 3)).toBe(true);
    expect(spreadExceeds(["61018.6", "60997"], 4)).toBe(false);
    expect(spreadExceeds(["5"], 0)).toBe(false);
  });

  it("compares across scales", () => {
    expect(compareRates("1.50", "1.5")).toBe(0);
    expect(compareRates("0.9999999999", "1")).toBe(-1);
    expect(compareRates("100000.01", "100000")).toBe(1);
  });

  it("reads only plain decimals", () => {
    for (const bad of ["1e-7", "-1", " 1", "1.", ".5", "", "0x10", "NaN"]) expect(parseRate(bad)).toBeNull();
    expect(parseRate("61027.50000")).toEqual({ units: 6102750000n, scale: 5 });
  });
});

describe("stablecoins at par within the band", () => {
  it("rounds a stablecoin within 50 bps of 1 to exactly 1, and leaves it at the market outside", () => {
    expect(DEFAULT_PAR_BAND_BPS).toBe(50);
    for (const inside of ["0.995", "0.99983712", "1", "1.000", "1.005", "0.9995413"]) {
      expect(roundToPar("USDC", inside)).toBe("1");
    }
    for (const outside of ["0.99499999", "1.00500001", "0.97", "1.2"])
      expect(roundToPar("USDT", outside)).toBe(outside);
  });

  it("leaves other assets alone, and follows the configured band and stablecoin list", () => {
    expect(roundToPar("BTC", "0.9999")).toBe("0.9999");
    expect(roundToPar("USDC.e", "0.9999")).toBe("1");
    expect(roundToPar("USDC", "0.9999", { parBandBps: 0 })).toBe("0.9999");
    expect(roundToPar("USDT", "0.998", { parBandBps: 20 })).toBe("1");
    expect(roundToPar("USDT", "0.998", { parBandBps: 19 })).toBe("0.998");
    expect(roundToPar("DAI", "0.9997", { stablecoins: new Set(["DAI"]) })).toBe("1");
    expect(roundToPar("USDC", "0.9997", { stablecoins: new Set(["DAI"]) })).toBe("0.9997");
  });
});
