import { ConfigError, loadConfig } from "@mp/core";
import { createDatabase } from "@mp/db";
import { describe, expect, it } from "vitest";
import { createProviders } from "../src/providers.ts";

/** A pool that is never connected: building a provider does not touch the database. */
const db = createDatabase({ connectionString: "postgres://unused@127.0.0.1:1/unused", engine: "postgresql" });

const BANK = {
  BANK_NAME: "First Statement Bank",
  BANK_ADDRESS: "1 Main Street, Springfield, IL 62701",
  BANK_ROUTING_NUMBER: "071000013",
  BANK_ACCOUNT_NAME: "Acme Payments LLC",
  BANK_ACCOUNT_RANGE: "800000000000-800000999999",
};

function refusal(env: Record<string, string>): string {
  try {
    createProviders(loadConfig(env), db);
  } catch (error) {
    if (error instanceof ConfigError) return error.message;
    throw error;
  }
  throw new Error("started");
}

describe("createProviders", () => {
  it("builds the sandbox providers in a sandbox (the default)", () => {
    const providers = createProviders(loadConfig({}), db);
    expect(providers.rates.name).toBe("sandbox");
    expect(providers.kyc.name).toBe("sandbox");
    expect(providers.banking.name).toBe("sandbox");
  });

  it("refuses every sandbox provider in production, unset or explicit, naming the setting", () => {
    expect(refusal({ PAYMENTS_ENV: "production" })).toBe(
      "RATES_PROVIDER, KYC_PROVIDER, BANKING_PROVIDER: sandbox providers (deposits valued at hard-coded rates; " +
        "every KYC payload decided by magic values; simulated bank accounts) are refused when " +
        "PAYMENTS_ENV=production; unset means sandbox",
    );
    expect(
      refusal({
        PAYMENTS_ENV: "production",
        RATES_PROVIDER: "sandbox",
        KYC_PROVIDER: "sandbox",
        BANKING_PROVIDER: "sandbox",
      }),
    ).toMatch(/^RATES_PROVIDER, KYC_PROVIDER, BANKING_PROVIDER: sandbox providers/);
    // The production KYC and banking providers pass; the rates one is still refused until it is wired.
    expect(
      refusal({ PAYMENTS_ENV: "production", KYC_PROVIDER: "manual", BANKING_PROVIDER: "statement", ...BANK }),
    ).toMatch(/^RATES_PROVIDER: sandbox providers/);
  });

  it("builds manual KYC review and statement banking", () => {
    const providers = createProviders(
      loadConfig({ KYC_PROVIDER: "manual", BANKING_PROVIDER: "statement", ...BANK }),
      db,
    );
    expect(providers.kyc.name).toBe("manual");
    expect(providers.banking.name).toBe("statement");
  });

  it("names the missing or wrong bank setting", () => {
    const { BANK_ACCOUNT_RANGE: _range, ...withoutRange } = BANK;
    expect(refusal({ BANKING_PROVIDER: "statement", ...withoutRange })).toBe(
      "BANK_ACCOUNT_RANGE: required with BANKING_PROVIDER=statement",
    );
    expect(refusal({ BANKING_PROVIDER: "statement", ...BANK, BANK_ROUTING_NUMBER: "071000014" })).toBe(
      "BANK_ROUTING_NUMBER: fails the ABA checksum",
    );
    expect(refusal({ BANKING_PROVIDER: "statement", ...BANK, BANK_ACCOUNT_RANGE: "9000-100" })).toMatch(
      /^BANK_ACCOUNT_RANGE: must be two account numbers/,
    );
    expect(refusal({ KYC_PROVIDER: "robot" })).toMatch(/^KYC_PROVIDER: /);
  });
});
