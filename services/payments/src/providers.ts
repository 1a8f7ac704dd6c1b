import { type AppConfig, ConfigError, loadJsonConfigFile, type ProviderChoice } from "@mp/core";
import type { Database } from "@mp/db";
import {
  type BankingProvider,
  CHAINLINK_MAINNET_FEEDS,
  chainlinkFeedsSchema,
  createCachedRateProvider,
  createChainlinkRateProvider,
  createCombinedRateProvider,
  createKrakenTickerRateProvider,
  createManualKycProvider,
  createSandboxBankingProvider,
  createSandboxKycProvider,
  createSandboxRateProvider,
  createStatementBankingProvider,
  isValidAbaRoutingNumber,
  type KycProvider,
  type RateProvider,
  rateBoundsSchema,
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
    build: Record<ProviderChoice[R], (context: BuildContext) => Providers[R]>;
  };
} = {
  rates: {
    setting: "RATES_PROVIDER",
    sandboxIs: "deposits valued at hard-coded rates",
    build: {
      sandbox: () => createSandboxRateProvider(),
      chainlink: ({ config }) => cached(config, chainlink(config)),
      kraken: ({ config }) => cached(config, kraken(config)),
      combined: ({ config }) => {
        const { maxSpreadBps, minSources } = config.rates;
        return cached(
          config,
          createCombinedRateProvider([chainlink(config), kraken(config)], {
            maxSpreadBps,
            ...(minSources !== undefined ? { minAnswers: minSources } : {}),
          }),
        );
      },
    },
  },
  kyc: {
    setting: "KYC_PROVIDER",
    sandboxIs: "every KYC payload decided by magic values",
    build: {
      sandbox: () => createSandboxKycProvider(),
      manual: ({ db }) => createManualKycProvider({ db }),
    },
  },
  banking: {
    setting: "BANKING_PROVIDER",
    sandboxIs: "simulated bank accounts",
    build: {
      sandbox: () => createSandboxBankingProvider(),
      statement: ({ db, config }) => {
        const bank = config.statementBank;
        if (!bank) throw new ConfigError("BANKING_PROVIDER", "statement needs the BANK_* settings");
        if (!isValidAbaRoutingNumber(bank.routingNumber)) {
          throw new ConfigError("BANK_ROUTING_NUMBER", "fails the ABA checksum");
        }
        return createStatementBankingProvider({
          db,
          settings: {
            bankName: bank.bankName,
            bankAddress: bank.bankAddress,
            routingNumber: bank.routingNumber,
            accountName: bank.accountName,
            accountRange: bank.accountRange,
            ...(bank.bic ? { bic: bank.bic } : {}),
          },
        });
      },
    },
  },
};

/** What building the providers reads of the configuration. */
type ProviderConfig = Pick<AppConfig, "environment" | "providers" | "statementBank" | "rates">;

/** What both market sources share: the operator's bounds and the stablecoin par band. */
function marketSettings(config: ProviderConfig) {
  const { boundsFile, stablecoinParBps } = config.rates;
  return {
    ...(boundsFile ? { bounds: loadJsonConfigFile("RATES_BOUNDS_FILE", boundsFile, rateBoundsSchema, "bounds") } : {}),
    ...(stablecoinParBps !== undefined ? { parBandBps: stablecoinParBps } : {}),
  };
}

function chainlink(config: ProviderConfig): RateProvider {
  const { rpcUrl, feedsFile } = config.rates;
  if (!rpcUrl) throw new ConfigError("RATES_RPC_URL", "required for Chainlink feeds (the chain the feeds are on)");
  return createChainlinkRateProvider({
    rpcUrl,
    feeds: feedsFile
      ? loadJsonConfigFile("RATES_FEEDS_FILE", feedsFile, chainlinkFeedsSchema, "feeds")
      : CHAINLINK_MAINNET_FEEDS,
    ...marketSettings(config),
  });
}

function kraken(config: ProviderConfig): RateProvider {
  const { tickerUrl } = config.rates;
  return createKrakenTickerRateProvider({ ...(tickerUrl ? { baseUrl: tickerUrl } : {}), ...marketSettings(config) });
}

/**
 * One round of RPC or HTTP calls per interval for GET /v1/rates, the balance and every indexer
 * together (they share this provider), never past a rate's expires_at.
 */
function cached(config: ProviderConfig, provider: RateProvider): RateProvider {
  const { cacheMs } = config.rates;
  return createCachedRateProvider(provider, cacheMs !== undefined ? { maxAgeMs: cacheMs } : {});
}

interface BuildContext {
  db: Database;
  config: ProviderConfig;
}

/**
 * Production refuses every sandbox provider (unset means sandbox): one ConfigError line naming
 * each such setting. Called before anything opens; createProviders checks it again.
 */
export function refuseSandboxProviders(config: ProviderConfig): void {
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
}

/** The configured providers; the manual KYC queue and the statement bank keep their state in `db`. */
export function createProviders(config: ProviderConfig, db: Database): Providers {
  refuseSandboxProviders(config);
  const context = { db, config };
  return {
    rates: BUILDERS.rates.build[config.providers.rates](context),
    kyc: BUILDERS.kyc.build[config.providers.kyc](context),
    banking: BUILDERS.banking.build[config.providers.banking](context),
  };
}
