import { ConfigError, loadConfig } from "@mp/core";
import { describe, expect, it } from "vitest";
import { createProviders } from "../src/providers.ts";

describe("createProviders", () => {
  it("builds the sandbox providers in a sandbox (the default)", () => {
    const providers = createProviders(loadConfig({}));
    expect(providers.rates.name).toBe("sandbox");
    expect(providers.kyc.name).toBe("sandbox");
    expect(providers.banking.name).toBe("sandbox");
  });

  it("refuses every sandbox provider in production, unset or explicit, naming the setting", () => {
    const refusal = (env: Record<string, string>) => {
      try {
        createProviders(loadConfig({ PAYMENTS_ENV: "production", ...env }));
      } catch (error) {
        if (error instanceof ConfigError) return error.message;
        throw error;
      }
      throw new Error("production started on a sandbox provider");
    };
    expect(refusal({})).toBe(
      "RATES_PROVIDER, KYC_PROVIDER, BANKING_PROVIDER: sandbox providers (deposits valued at hard-coded rates; " +
        "every KYC payload decided by magic values; simulated bank accounts) are refused when " +
        "PAYMENTS_ENV=production; unset means sandbox",
    );
    expect(refusal({ RATES_PROVIDER: "sandbox", KYC_PROVIDER: "sandbox", BANKING_PROVIDER: "sandbox" })).toMatch(
      /^RATES_PROVIDER, KYC_PROVIDER, BANKING_PROVIDER: sandbox providers/,
    );
  });
});
