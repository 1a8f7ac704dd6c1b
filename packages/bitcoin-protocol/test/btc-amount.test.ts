import { NATIVE_ASSETS } from "@mp/core";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { BTC_DECIMALS, btcToSatoshis, MAX_MONEY_SATOSHIS, satoshisToBtcString } from "../src/btc-amount.ts";

describe("btcToSatoshis", () => {
  it("converts Core's 8-decimal literals exactly", () => {
    expect(btcToSatoshis("0.49993020")).toBe(49_993_020n);
    expect(btcToSatoshis("12.50002820")).toBe(1_250_002_820n);
    expect(btcToSatoshis("0.00000001")).toBe(1n);
    expect(btcToSatoshis("0.00000000")).toBe(0n);
    expect(btcToSatoshis("20999999.97690000")).toBe(2_099_999_997_690_000n);
    // 0.1 + 0.2 style float error would show here.
    expect(btcToSatoshis("0.3")).toBe(30_000_000n);
  });

  it("reads exponent notation produced by JSON re-serialisers", () => {
    expect(btcToSatoshis("5.59e-06")).toBe(559n);
    expect(btcToSatoshis("1.108e-05")).toBe(1108n);
    expect(btcToSatoshis("1E-8")).toBe(1n);
    expect(btcToSatoshis("2.5e1")).toBe(2_500_000_000n);
  });

  it("takes JSON integers as whole BTC", () => {
    expect(btcToSatoshis(50)).toBe(5_000_000_000n);
    expect(btcToSatoshis(0)).toBe(0n);
  });

  it("refuses what is not an exact non-negative amount instead of rounding", () => {
    expect(btcToSatoshis("0.000000001")).toBeNull();
    expect(btcToSatoshis("1e-9")).toBeNull();
    expect(btcToSatoshis("-0.1")).toBeNull();
    expect(btcToSatoshis(-1)).toBeNull();
    expect(btcToSatoshis(0.5)).toBeNull();
    expect(btcToSatoshis("21000000.00000001")).toBeNull();
    expect(btcToSatoshis("1,5")).toBeNull();
    expect(btcToSatoshis("")).toBeNull();
    expect(btcToSatoshis("01.5")).toBeNull();
  });

  it("accepts trailing zeros beyond 8 decimals (they are exact)", () => {
    expect(btcToSatoshis("0.1000000000")).toBe(10_000_000n);
  });

  it("round-trips every amount through Core's literal", () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: MAX_MONEY_SATOSHIS }), (sats) => {
        expect(btcToSatoshis(satoshisToBtcString(sats))).toBe(sats);
      }),
    );
  });

  it("is exact where float arithmetic is not", () => {
    // 0.29 * 1e8 = 28999999.999999996 in IEEE doubles.
    expect(Math.floor(0.29 * 1e8)).toBe(28_999_999);
    expect(btcToSatoshis("0.29")).toBe(29_000_000n);
  });
});

it("uses the protocol's 8 decimals, as the shared asset table does", () => {
  expect(BTC_DECIMALS).toBe(NATIVE_ASSETS.BITCOIN.decimals);
});

describe("satoshisToBtcString", () => {
  it("writes 8 decimals like Core's ValueFromAmount", () => {
    expect(satoshisToBtcString(0n)).toBe("0.00000000");
    expect(satoshisToBtcString(1n)).toBe("0.00000001");
    expect(satoshisToBtcString(5_000_000_000n)).toBe("50.00000000");
    expect(() => satoshisToBtcString(-1n)).toThrow(RangeError);
  });
});
