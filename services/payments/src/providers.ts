import { type AppConfig, ConfigError, type ProviderChoice } from "@mp/core";
import {
  type BankingProvider,
  createSandboxBankingProvider,
  createSandboxKycProvider,
  createSandboxRateProvider,
  type KycProvider,
  type RateProvider,
} from "@mp/providers";

export interface Providers {
  rates: RateProvider;
  kyc: KycProvider;
  banking: BankingProvider;
}

/**
 * The one place a provider name becomes a provider. A production provider is added to its list in
 * @mp/core's config and here (the Record types make a missing builder a type error).
 */
const BUILDERS: {
  [R in keyof ProviderChoice]: {
    setting: string;
    /** What running the sandbox one in production would mean, for the refusal's line. */
    sandboxIs: string;
    build: Record<ProviderChoice[R], () => Providers[R]>;
  };
} = {
  rates: {
    setting: "RATES_PROVIDER",
    sandboxIs: "deposits valued at hard-coded rates",
    build: { sandbox: () => createSandboxRateProvider() },
  },
  kyc: {
    setting: "KYC_PROVIDER",
    sandboxIs: "every KYC payload decided by magic values",
    build: { sandbox: () => createSandboxKycProvider() },
  },
  banking: {
    setting: "BANKING_PROVIDER",
    sandboxIs: "simulated bank accounts",
    build: { sandbox: () => createSandboxBankingProvider() },
  },
};

/**
 * The configured providers. Production refuses every sandbox provider (unset means sandbox): one
 * ConfigError line naming each such setting, before anything starts.
 */
export function createProviders(config: Pick<AppConfig, "environment" | "providers">): Providers {
  if (config.environment === "production") {
    const sandboxed = (["rates", "kyc", "banking"] as const).filter((role) => config.providers[role] === "sandbox");
    if (sandboxed.length > 0) {
      throw new ConfigError(
        sandboxed.map((role) => BUILDERS[role].setting).join(", "),
        `sandbox providers (${sandboxed.map((role) => BUILDERS[role].sandboxIs).join("; ")}) are refused when ` +
          "PAYMENTS_ENV=production; unset means sandbox",
      );
    }
  }
  return {
    rates: BUILDERS.rates.build[config.providers.rates](),
    kyc: BUILDERS.kyc.build[config.providers.kyc](),
    banking: BUILDERS.banking.build[config.providers.banking](),
  };
}
