import { describe, expect, it } from "vitest";
import { compareDecimals, formatMoney, formatUnits, roundDecimal, unitsToDecimal } from "../app/components/money.ts";

const en = { locale: "en-US" };

describe("formatMoney", () => {
  it("shows USD with its sign, separators and two decimals (the figures of issue 32)", () => {
    expect(formatMoney("13745.620000", "USD", en)).toBe("$13,745.62");
    expect(formatMoney("162.500000", "USD", en)).toBe("$162.50");
    expect(formatMoney("10246.230000", "USD", en)).toBe("$10,246.23");
    expect(formatMoney("0", "USD", en)).toBe("$0.00");
    expect(formatMoney("1234567890.120000", "USD", en)).toBe("$1,234,567,890.12");
  });

  it("shows each asset with its own precision, trailing zeros trimmed where it varies", () => {
    expect(formatMoney("0.002500", "BTC", en)).toBe("0.0025 BTC");
    expect(formatMoney("0.12345678", "BTC", en)).toBe("0.12345678 BTC");
    expect(formatMoney("1.000000", "BTC", en)).toBe("1.00 BTC");
    expect(formatMoney("9.99957677799523069", "ETH", en)).toBe("9.999577 ETH");
    expect(formatMoney("1250.100000", "USDC", en)).toBe("1,250.10 USDC");
    expect(formatMoney("25.5", "USDT", en)).toBe("25.50 USDT");
    expect(formatMoney("12.000000001", "SOL", en)).toBe("12.00 SOL");
  });

  it("rounds half away from zero on the digits themselves, beyond what a float holds", () => {
    expect(formatMoney("0.005", "USD", en)).toBe("$0.01");
    expect(formatMoney("0.004999999999999999999", "USD", en)).toBe("< $0.01");
    expect(formatMoney("-2.345", "USD", en)).toBe("-$2.35");
    expect(formatMoney("9999999.995", "USD", en)).toBe("$10,000,000.00");
    // 2^53 + 1: a float would print ...992.
    expect(formatMoney("9007199254740993.00", "USDC", en)).toBe("9,007,199,254,740,993.00 USDC");
    expect(formatMoney("0.9999995", "ETH", en)).toBe("1.00 ETH");
  });

  it("never shows a non-zero amount as zero, nor a zero as negative", () => {
    expect(formatMoney("0.000000000000000001", "ETH", en)).toBe("< 0.000001 ETH");
    expect(formatMoney("-0.000000000000000001", "ETH", en)).toBe("> -0.000001 ETH");
    expect(formatMoney("-0.000000", "USD", en)).toBe("$0.00");
  });

  it("uses the locale's separators", () => {
    expect(formatMoney("13745.62", "USD", { locale: "de-DE" })).toBe("$13.745,62");
    expect(formatMoney("0.0025", "BTC", { locale: "de-DE" })).toBe("0,0025 BTC");
  });

  it("shows a string that is no decimal as it is, rather than guessing", () => {
    expect(formatMoney("n/a", "USD", en)).toBe("$n/a");
    expect(formatMoney("1e5", "BTC", en)).toBe("1e5 BTC");
  });
});

describe("smallest units", () => {
  it("converts exactly, whatever the decimals", () => {
    expect(unitsToDecimal("9999576777995230690", 18)).toBe("9.99957677799523069");
    expect(unitsToDecimal("1", 18)).toBe("0.000000000000000001");
    expect(unitsToDecimal("-250000", 8)).toBe("-0.0025");
    expect(unitsToDecimal("1200", 0)).toBe("1200");
    expect(unitsToDecimal("12.5", 6)).toBeUndefined();
  });

  it("formats wei as ETH and satoshis as BTC", () => {
    expect(formatUnits("9999576777995230690", 18, "ETH", en)).toBe("9.999577 ETH");
    expect(formatUnits("250000", 8, "BTC", en)).toBe("0.0025 BTC");
    expect(formatUnits("-1", 18, "ETH", en)).toBe("> -0.000001 ETH");
    expect(formatUnits("1250100000", 6, "USDC", en)).toBe("1,250.10 USDC");
  });

  it("rounds to the precision asked", () => {
    expect(roundDecimal("1.23456", { min: 0, max: 3 })).toEqual({
      negative: false,
      whole: "1",
      fraction: "235",
      tiny: false,
    });
    expect(roundDecimal("7.10", { min: 0, max: 4 })?.fraction).toBe("1");
    expect(roundDecimal("7", { min: 0, max: 0 })?.fraction).toBe("");
  });
});

describe("compareDecimals", () => {
  it("orders decimal strings exactly, whatever their number of digits", () => {
    expect(compareDecimals("10246.230000", "9999.999999")).toBe(1);
    expect(compareDecimals("0.1", "0.100000")).toBe(0);
    expect(compareDecimals("9007199254740993.000001", "9007199254740993.000002")).toBe(-1);
    expect(compareDecimals("-2.5", "1")).toBe(-1);
  });
});
