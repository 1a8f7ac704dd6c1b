import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { loadConfig } from "../src/config.ts";
import { ConfigError } from "../src/errors.ts";

function configError(env: Record<string, string>): ConfigError {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error("expected a ConfigError");
}

const dir = mkdtempSync(join(tmpdir(), "config-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("provider settings", () => {
  it("default to sandbox, and take sandbox explicitly", () => {
    expect(loadConfig({}).providers).toEqual({ rates: "sandbox", kyc: "sandbox", banking: "sandbox" });
    expect(
      loadConfig({ RATES_PROVIDER: "sandbox", KYC_PROVIDER: "sandbox", BANKING_PROVIDER: "sandbox" }).providers,
    ).toEqual({ rates: "sandbox", kyc: "sandbox", banking: "sandbox" });
  });

  it("refuse an unknown provider, naming the setting and not the value", () => {
    for (const setting of ["RATES_PROVIDER", "KYC_PROVIDER", "BANKING_PROVIDER"]) {
      const error = configError({ [setting]: "acme-secret-vendor" });
      expect(error.setting).toBe(setting);
      expect(error.message).toMatch(new RegExp(`^${setting}: `));
      expect(error.message).not.toContain("acme-secret-vendor");
    }
  });
});

describe("METRICS_TOKEN", () => {
  const token = "m3tr1cs-t0ken-long-enough";

  it("is unset by default, read from METRICS_TOKEN or METRICS_TOKEN_FILE", () => {
    expect(loadConfig({}).metricsToken).toBeUndefined();
    expect(loadConfig({ METRICS_TOKEN: token }).metricsToken).toBe(token);
    const file = join(dir, "metrics-token");
    writeFileSync(file, `${token}\n`);
    expect(loadConfig({ METRICS_TOKEN_FILE: file }).metricsToken).toBe(token);
  });

  it("refuses a short token, a token with spaces, both forms at once, never echoing the value", () => {
    const short = configError({ METRICS_TOKEN: "short-secret" });
    expect(short.setting).toBe("METRICS_TOKEN");
    expect(short.message).not.toContain("short-secret");
    expect(configError({ METRICS_TOKEN: "a token with spaces in it" }).setting).toBe("METRICS_TOKEN");
    const file = join(dir, "short-token");
    writeFileSync(file, "short-secret");
    const shortFile = configError({ METRICS_TOKEN_FILE: file });
    expect(shortFile.setting).toBe("METRICS_TOKEN_FILE");
    expect(shortFile.message).not.toContain("short-secret");
    expect(configError({ METRICS_TOKEN_FILE: join(dir, "missing") }).setting).toBe("METRICS_TOKEN_FILE");
    expect(configError({ METRICS_TOKEN: token, METRICS_TOKEN_FILE: file }).message).toMatch(/not both/);
  });
});

describe("EVENT_RETENTION_DAYS", () => {
  it("defaults to 30 days and may only be raised: fewer than 30 is refused", () => {
    expect(loadConfig({}).eventRetentionDays).toBe(30);
    expect(loadConfig({ EVENT_RETENTION_DAYS: "90" }).eventRetentionDays).toBe(90);
    for (const value of ["29", "0", "-1", "30.5", "a month"]) {
      expect(configError({ EVENT_RETENTION_DAYS: value }).setting, value).toBe("EVENT_RETENTION_DAYS");
    }
  });
});

describe("JOB_HEARTBEAT_SECONDS", () => {
  it("defaults to 10 s and refuses what pg-boss would (under 10 s), naming the setting", () => {
    expect(loadConfig({}).jobHeartbeatSeconds).toBe(10);
    expect(loadConfig({ JOB_HEARTBEAT_SECONDS: "30" }).jobHeartbeatSeconds).toBe(30);
    for (const value of ["9", "0", "ten", "1.5"]) {
      expect(configError({ JOB_HEARTBEAT_SECONDS: value }).setting).toBe("JOB_HEARTBEAT_SECONDS");
    }
  });
});

describe("TREASURY_MNEMONIC", () => {
  it("is only a source here: the file is read by the signer role alone, never at load", () => {
    expect(loadConfig({ TREASURY_MNEMONIC_FILE: join(dir, "not-there") }).treasuryMnemonic).toEqual({
      file: join(dir, "not-there"),
    });
    expect(loadConfig({ TREASURY_MNEMONIC: "some words" }).treasuryMnemonic).toEqual({ value: "some words" });
    expect(loadConfig({}).treasuryMnemonic).toBeUndefined();
  });

  it("refuses both settings at once in one line without the words", () => {
    const error = configError({ TREASURY_MNEMONIC: "secret words here", TREASURY_MNEMONIC_FILE: "/x" });
    expect(error.message).toBe("TREASURY_MNEMONIC: set TREASURY_MNEMONIC or TREASURY_MNEMONIC_FILE, not both");
  });
});

describe("TRANSFER_* settings", () => {
  it("default to a 50 bps spread, no fee, 5-minute quotes and 1-hour funding; parse the fee exactly", () => {
    expect(loadConfig({}).transfers).toEqual({
      spreadBps: 50,
      feeFixedUsdMicros: 0n,
      feeBps: 0,
      quoteTtlSeconds: 300,
      fundingTtlSeconds: 3_600,
      returnNetworkFeeUsdMicros: 1_000_000n,
      travelRuleThresholdUsdMicros: 3_000_000_000n,
    });
    const set = loadConfig({
      TRANSFER_SPREAD_BPS: "25",
      TRANSFER_FEE_FIXED_USD: "1.5",
      TRANSFER_FEE_BPS: "30",
      TRANSFER_QUOTE_TTL_SECONDS: "60",
      TRANSFER_FUNDING_TTL_SECONDS: "86400",
      RETURN_NETWORK_FEE_USD: "0.25",
      TRAVEL_RULE_THRESHOLD_USD: "1000",
    }).transfers;
    expect(set).toEqual({
      spreadBps: 25,
      feeFixedUsdMicros: 1_500_000n,
      feeBps: 30,
      quoteTtlSeconds: 60,
      fundingTtlSeconds: 86_400,
      returnNetworkFeeUsdMicros: 250_000n,
      travelRuleThresholdUsdMicros: 1_000_000_000n,
    });
  });

  it("refuses garbage, naming the setting", () => {
    for (const [setting, value] of [
      ["TRANSFER_SPREAD_BPS", "1001"],
      ["TRANSFER_SPREAD_BPS", "0.5"],
      ["TRANSFER_FEE_FIXED_USD", "1.005"],
      ["TRANSFER_FEE_FIXED_USD", "-1"],
      ["RETURN_NETWORK_FEE_USD", "0.001"],
      ["TRAVEL_RULE_THRESHOLD_USD", "3000.50"],
      ["TRANSFER_FEE_BPS", "lots"],
      ["TRANSFER_QUOTE_TTL_SECONDS", "5"],
      ["TRANSFER_FUNDING_TTL_SECONDS", "9999999"],
      // The quoted rate of a bank-funded transfer holds a day at most (issue 27).
      ["TRANSFER_FUNDING_TTL_SECONDS", "86401"],
      ["TRANSFER_FUNDING_TTL_SECONDS", "604800"],
    ] as const) {
      expect(configError({ [setting]: value }).setting, `${setting}=${value}`).toBe(setting);
    }
  });
});

describe("LIQUIDATION_* settings", () => {
  it("default to no fee of the product's own, parse it exactly, refuse garbage naming the setting", () => {
    expect(loadConfig({}).liquidation).toEqual({ feeFixedUsdMicros: 0n, feeBps: 0 });
    expect(loadConfig({ LIQUIDATION_FEE_FIXED_USD: "0.25", LIQUIDATION_FEE_BPS: "100" }).liquidation).toEqual({
      feeFixedUsdMicros: 250_000n,
      feeBps: 100,
    });
    // The transfer fee is not the drains' fee.
    expect(loadConfig({ TRANSFER_FEE_FIXED_USD: "1", TRANSFER_FEE_BPS: "30" }).liquidation.feeBps).toBe(0);
    for (const [setting, value] of [
      ["LIQUIDATION_FEE_FIXED_USD", "0.001"],
      ["LIQUIDATION_FEE_FIXED_USD", "-1"],
      ["LIQUIDATION_FEE_BPS", "1001"],
      ["LIQUIDATION_FEE_BPS", "1.5"],
    ] as const) {
      expect(configError({ [setting]: value }).setting, `${setting}=${value}`).toBe(setting);
    }
  });
});
