import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { z } from "zod";
import { type ChainsConfig, loadChainsConfigFile } from "./chains-config.ts";
import { ConfigError } from "./errors.ts";
import { decimalToUnits, USD_DECIMALS } from "./money.ts";

/**
 * The process configuration, read once from the environment at start. A bad value fails fast with
 * one line naming the setting (ConfigError); values of secret settings are never echoed.
 */
export interface AppConfig {
  databaseUrl: string | undefined;
  dataDir: string;
  port: number;
  host: string;
  logLevel: string;
  environment: "sandbox" | "production";
  /** Resolved lazily by packages/custody; only the source is known here. */
  mnemonic: { value: string } | { file: string } | undefined;
  /**
   * TREASURY_MNEMONIC or TREASURY_MNEMONIC_FILE: the source only. Resolved (the file read) by the
   * signer role alone, so no other role ever holds or even reads the treasury's words.
   */
  treasuryMnemonic: { value: string } | { file: string } | undefined;
  encryptionKey: Buffer | undefined;
  chainsConfigPath: string | undefined;
  chains: ChainsConfig | undefined;
  rateLimitPerMinute: number;
  /** Events older than this many days are pruned (EVENT_RETENTION_DAYS, at least 30). */
  eventRetentionDays: number;
  /** JOB_HEARTBEAT_SECONDS: a job silent this long (its worker killed or hung) is retried elsewhere. */
  jobHeartbeatSeconds: number;
  /**
   * The leadership bound (INDEXER_LEASE_SECONDS): an indexer that stops renewing (hung, host gone)
   * loses its chains this long after its last renewal, by the database's clock.
   */
  indexerLeaseSeconds: number;
  /** Which outside provider serves each role (services/payments builds them in one place). */
  providers: ProviderChoice;
  /** Bearer token `GET /metrics` requires; unset: open in a sandbox, refused at start in production. */
  metricsToken: string | undefined;
  /** SANCTIONS_SCREENING and SANCTIONS_LIST_PATH (docs/sanctions.md); the list is read where it is built. */
  sanctions: SanctionsConfig;
  /** Set when BANKING_PROVIDER=statement (its settings are then required). */
  statementBank: StatementBankConfig | undefined;
  /** The RATES_* settings; the files they name are read and checked where the provider is built. */
  rates: RatesConfig;
  /** The TRANSFER_* settings: pricing and time limits of quotes and transfers (docs/transfers.md). */
  transfers: TransferSettings;
  /** The PAYMENT_REQUEST_* settings and PUBLIC_URL (docs/payment-requests.md). */
  paymentRequests: PaymentRequestSettings;
  /** The LIQUIDATION_* settings: the fee of liquidation addresses' drains (docs/liquidation-addresses.md). */
  liquidation: LiquidationSettings;
}

/** Payment requests and their hosted page (docs/payment-requests.md). */
export interface PaymentRequestSettings {
  /** PAYMENT_REQUEST_RATE_LOCK_SECONDS: how long a request's amounts hold at their rates (10..86400); unset: 900. */
  rateLockSeconds: number;
  /** PAYMENT_REQUEST_TTL_SECONDS: a request's expiry when its creator names none (60..2592000); unset: 3600. */
  defaultTtlSeconds: number;
  /** PUBLIC_URL: where payers reach this service (the hosted pages' links); unset: http://localhost:PORT. */
  publicUrl: string;
}

/**
 * The fee a liquidation address's drain takes, its own product's (not the transfer fee). A merchant's
 * row in liquidation_fee_overrides replaces it for that merchant.
 */
export interface LiquidationSettings {
  /** LIQUIDATION_FEE_FIXED_USD: fixed part, a USD decimal (whole cents); unset: 0. */
  feeFixedUsdMicros: bigint;
  /** LIQUIDATION_FEE_BPS: variable part, of the drained USD (0..1000); unset: 0. */
  feeBps: number;
}

/**
 * How transfers are priced and how long their figures hold. A merchant's row in
 * transfer_fee_overrides replaces the fee schedule for that merchant.
 */
export interface TransferSettings {
  /** TRANSFER_SPREAD_BPS: taken off the market rate (0..1000); unset: 50. */
  spreadBps: number;
  /** TRANSFER_FEE_FIXED_USD: fixed part of the fee, a USD decimal (whole cents); unset: 0. */
  feeFixedUsdMicros: bigint;
  /** TRANSFER_FEE_BPS: variable part of the fee, of the source amount (0..1000); unset: 0. */
  feeBps: number;
  /** TRANSFER_QUOTE_TTL_SECONDS: how long a quote can be turned into a transfer (30..3600); unset: 300. */
  quoteTtlSeconds: number;
  /**
   * TRANSFER_FUNDING_TTL_SECONDS: how long a just-in-time transfer waits for its funds at the quoted
   * rate (60..86400); unset: 3600. Then it expires: never executed at a stale rate. At most a day
   * (issue 27): the service carries the price risk of a bank-funded transfer for that long at most
   * (docs/transfers.md "Price risk").
   */
  fundingTtlSeconds: number;
  /**
   * RETURN_NETWORK_FEE_USD: the network fee a return on chain takes from the returned amount, a USD
   * decimal converted at the deposit's rate (the treasury pays the chain's real fee); unset: 1.00.
   * A return worth no more than it is refused and stays payable.
   */
  returnNetworkFeeUsdMicros: bigint;
  /**
   * TRAVEL_RULE_THRESHOLD_USD: a payout to a crypto address worth this much or more (USD, whole
   * dollars, valued as the quote values it) requires the beneficiary's data (docs/transfers.md
   * "Travel rule"); unset: 3000.
   */
  travelRuleThresholdUsdMicros: bigint;
}

/**
 * The outside providers that exist, per role. A provider joins its list here and its builder in
 * services/payments/src/providers.ts, behind the same interface.
 */
export const RATES_PROVIDERS = ["sandbox", "chainlink", "kraken", "combined"] as const;
export const KYC_PROVIDERS = ["sandbox", "manual"] as const;
export const BANKING_PROVIDERS = ["sandbox", "statement"] as const;

/** The bank behind BANKING_PROVIDER=statement: what the deposit instructions show. */
export interface StatementBankConfig {
  bankName: string;
  bankAddress: string;
  routingNumber: string;
  accountName: string;
  /** BANK_ACCOUNT_RANGE `first-last`: digit strings of one length, first <= last. */
  accountRange: { first: string; last: string };
  bic: string | undefined;
  /** BANK_PAYOUT_ACCOUNT: the account payouts are paid from (pain.001 DbtrAcct); the export needs it. */
  payoutAccount: string | undefined;
}

/**
 * Settings of the production rate providers (docs/production.md "Production rates"). Defaults are applied
 * here; unset files mean the documented defaults (Ethereum mainnet feeds, no bounds).
 */
export interface RatesConfig {
  /** RATES_RPC_URL: an EVM RPC of the chain the feeds are on; required for chainlink and combined. */
  rpcUrl: string | undefined;
  /** RATES_FEEDS_FILE: JSON asset -> {address, heartbeatSeconds, decimals?}; unset: mainnet defaults. */
  feedsFile: string | undefined;
  /** RATES_TICKER_URL: the Kraken API's base URL; unset: https://api.kraken.com. */
  tickerUrl: string | undefined;
  /** RATES_MAX_SPREAD_BPS (combined): largest (max - min) / median of the sources' answers. */
  maxSpreadBps: number;
  /** RATES_MIN_SOURCES (combined): fresh answers needed per asset; unset: every source. */
  minSources: number | undefined;
  /** RATES_BOUNDS_FILE: JSON asset -> {min?, max?} (USD per unit); unset: no bounds. */
  boundsFile: string | undefined;
  /** RATES_STABLECOIN_PAR_BPS: a stablecoin within this of 1 counts as exactly 1 (0: never rounded); unset: 50. */
  stablecoinParBps: number | undefined;
  /** RATES_CACHE_MS: how long one answer is reused (never past its expiry; 0: ask every time); unset: 5000. */
  cacheMs: number | undefined;
}

export interface SanctionsConfig {
  /** SANCTIONS_SCREENING: "off" only by the operator's explicit choice (logged at every start); unset: on. */
  screening: "on" | "off";
  /** SANCTIONS_LIST_PATH: one list file, or a directory of sanctioned_addresses_<ASSET>.txt files. */
  listPath: string | undefined;
}

export interface ProviderChoice {
  rates: (typeof RATES_PROVIDERS)[number];
  kyc: (typeof KYC_PROVIDERS)[number];
  banking: (typeof BANKING_PROVIDERS)[number];
}

const intString = (min: number, max: number) =>
  z
    .string()
    .regex(/^\d+$/, "must be a whole number")
    .transform(Number)
    .refine((n) => n >= min && n <= max, `must be between ${min} and ${max}`);

/** Long enough that guessing it is hopeless; its value is never echoed. */
const metricsToken = z.string().min(16, "must be at least 16 characters").regex(/^\S+$/, "must not contain spaces");

/** An http(s) URL; only its validity is reported, never the URL (it may carry an API key). */
const httpUrl = z
  .string()
  .refine((value) => URL.canParse(value) && /^https?:$/.test(new URL(value).protocol), "must be an http(s) URL");

/** A USD amount in dollars and cents, as the fee settings take it. */
const usdAmount = z.string().regex(/^\d{1,9}(\.\d{1,2})?$/, "must be a USD amount with at most 2 decimals, e.g. 1.50");

const envSchema = z.object({
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, "must be a postgres:// URL")
    .optional(),
  DATA_DIR: z.string().min(1).optional(),
  PORT: intString(0, 65535).optional(),
  HOST: z.string().min(1).optional(),
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).optional(),
  PAYMENTS_ENV: z.enum(["sandbox", "production"]).optional(),
  MASTER_MNEMONIC: z.string().min(1).optional(),
  MASTER_MNEMONIC_FILE: z.string().min(1).optional(),
  TREASURY_MNEMONIC: z.string().min(1).optional(),
  TREASURY_MNEMONIC_FILE: z.string().min(1).optional(),
  ENCRYPTION_KEY: z.string().min(1).optional(),
  ENCRYPTION_KEY_FILE: z.string().min(1).optional(),
  CHAINS_CONFIG: z.string().min(1).optional(),
  RATE_LIMIT_PER_MINUTE: intString(1, 1_000_000).optional(),
  // Merchants are promised at least 30 days of events (GET /v1/events, redelivery).
  EVENT_RETENTION_DAYS: intString(30, 36_500).optional(),
  // pg-boss refuses a heartbeat under 10 s.
  JOB_HEARTBEAT_SECONDS: intString(10, 3600).optional(),
  INDEXER_LEASE_SECONDS: intString(2, 3_600).optional(),
  RATES_PROVIDER: z.enum(RATES_PROVIDERS).optional(),
  KYC_PROVIDER: z.enum(KYC_PROVIDERS).optional(),
  BANKING_PROVIDER: z.enum(BANKING_PROVIDERS).optional(),
  METRICS_TOKEN: metricsToken.optional(),
  SANCTIONS_LIST_PATH: z.string().min(1).optional(),
  SANCTIONS_SCREENING: z.enum(["on", "off"]).optional(),
  METRICS_TOKEN_FILE: z.string().min(1).optional(),
  BANK_NAME: z.string().min(1).optional(),
  BANK_ADDRESS: z.string().min(1).optional(),
  BANK_ROUTING_NUMBER: z
    .string()
    .regex(/^\d{9}$/, "must be a 9-digit ABA routing number")
    .optional(),
  BANK_ACCOUNT_NAME: z.string().min(1).optional(),
  BANK_ACCOUNT_RANGE: z
    .string()
    .regex(/^\d{4,17}-\d{4,17}$/, "must be two account numbers of the same length, first-last")
    .refine((range) => {
      const [first = "", last = ""] = range.split("-");
      return first.length === last.length && BigInt(first) <= BigInt(last);
    }, "must be two account numbers of the same length, first-last, first <= last")
    .optional(),
  RATES_RPC_URL: httpUrl.optional(),
  RATES_FEEDS_FILE: z.string().min(1).optional(),
  RATES_TICKER_URL: httpUrl.optional(),
  RATES_MAX_SPREAD_BPS: intString(0, 10_000).optional(),
  RATES_MIN_SOURCES: intString(1, 2).optional(),
  RATES_BOUNDS_FILE: z.string().min(1).optional(),
  RATES_STABLECOIN_PAR_BPS: intString(0, 1_000).optional(),
  RATES_CACHE_MS: intString(0, 600_000).optional(),
  TRANSFER_SPREAD_BPS: intString(0, 1_000).optional(),
  TRANSFER_FEE_FIXED_USD: usdAmount.optional(),
  TRANSFER_FEE_BPS: intString(0, 1_000).optional(),
  TRANSFER_QUOTE_TTL_SECONDS: intString(30, 3_600).optional(),
  TRANSFER_FUNDING_TTL_SECONDS: intString(60, 86_400).optional(),
  RETURN_NETWORK_FEE_USD: usdAmount.optional(),
  TRAVEL_RULE_THRESHOLD_USD: intString(0, 1_000_000_000).optional(),
  LIQUIDATION_FEE_FIXED_USD: z
    .string()
    .regex(/^\d{1,9}(\.\d{1,2})?$/, "must be a USD amount with at most 2 decimals, e.g. 1.50")
    .optional(),
  LIQUIDATION_FEE_BPS: intString(0, 1_000).optional(),
  PAYMENT_REQUEST_RATE_LOCK_SECONDS: intString(10, 86_400).optional(),
  PAYMENT_REQUEST_TTL_SECONDS: intString(60, 2_592_000).optional(),
  PUBLIC_URL: httpUrl.optional(),
  BANK_BIC: z
    .string()
    .regex(/^[A-Z]{6}[A-Z0-9]{2}([A-Z0-9]{3})?$/, "must be a BIC (8 or 11 characters)")
    .optional(),
  BANK_PAYOUT_ACCOUNT: z
    .string()
    .regex(/^\d{4,17}$/, "must be an account number of 4 to 17 digits")
    .optional(),
});

/** The names of every setting loadConfig reads (docs/configuration.md names each). */
export const CONFIG_SETTINGS: readonly string[] = Object.keys(envSchema.shape);

function statementBank(e: z.infer<typeof envSchema>): StatementBankConfig | undefined {
  if (e.BANKING_PROVIDER !== "statement") return undefined;
  const required = [
    "BANK_NAME",
    "BANK_ADDRESS",
    "BANK_ROUTING_NUMBER",
    "BANK_ACCOUNT_NAME",
    "BANK_ACCOUNT_RANGE",
  ] as const;
  for (const setting of required) {
    if (!e[setting]) throw new ConfigError(setting, "required with BANKING_PROVIDER=statement");
  }
  const [first = "", last = ""] = (e.BANK_ACCOUNT_RANGE ?? "").split("-");
  return {
    bankName: e.BANK_NAME ?? "",
    bankAddress: e.BANK_ADDRESS ?? "",
    routingNumber: e.BANK_ROUTING_NUMBER ?? "",
    accountName: e.BANK_ACCOUNT_NAME ?? "",
    accountRange: { first, last },
    bic: e.BANK_BIC,
    payoutAccount: e.BANK_PAYOUT_ACCOUNT,
  };
}

function ratesConfig(e: z.infer<typeof envSchema>): RatesConfig {
  const provider = e.RATES_PROVIDER ?? "sandbox";
  if ((provider === "chainlink" || provider === "combined") && !e.RATES_RPC_URL) {
    throw new ConfigError("RATES_RPC_URL", `required with RATES_PROVIDER=${provider} (the chain the feeds are on)`);
  }
  return {
    rpcUrl: e.RATES_RPC_URL,
    feedsFile: e.RATES_FEEDS_FILE,
    tickerUrl: e.RATES_TICKER_URL,
    maxSpreadBps: e.RATES_MAX_SPREAD_BPS ?? 100,
    minSources: e.RATES_MIN_SOURCES,
    boundsFile: e.RATES_BOUNDS_FILE,
    stablecoinParBps: e.RATES_STABLECOIN_PAR_BPS,
    cacheMs: e.RATES_CACHE_MS,
  };
}

function transferSettings(e: z.infer<typeof envSchema>): TransferSettings {
  return {
    spreadBps: e.TRANSFER_SPREAD_BPS ?? 50,
    // Never null: the schema above admits only plain decimals with at most two digits.
    feeFixedUsdMicros: decimalToUnits(e.TRANSFER_FEE_FIXED_USD ?? "0", USD_DECIMALS) ?? 0n,
    feeBps: e.TRANSFER_FEE_BPS ?? 0,
    quoteTtlSeconds: e.TRANSFER_QUOTE_TTL_SECONDS ?? 300,
    fundingTtlSeconds: e.TRANSFER_FUNDING_TTL_SECONDS ?? 3_600,
    returnNetworkFeeUsdMicros: decimalToUnits(e.RETURN_NETWORK_FEE_USD ?? "1.00", USD_DECIMALS) ?? 1_000_000n,
    travelRuleThresholdUsdMicros: BigInt(e.TRAVEL_RULE_THRESHOLD_USD ?? 3_000) * 10n ** BigInt(USD_DECIMALS),
  };
}

function readSecretFile(setting: string, path: string): string {
  try {
    return readFileSync(path, "utf8").trim();
  } catch {
    throw new ConfigError(setting, `cannot read file ${path}`);
  }
}

/** Decodes a base64 AES-256 key; exactly 32 bytes or the start fails. */
export function decodeEncryptionKey(setting: string, text: string): Buffer {
  const key = Buffer.from(text.trim(), "base64");
  if (key.length !== 32 || key.toString("base64") !== text.trim()) {
    throw new ConfigError(setting, "must be 32 bytes encoded as base64");
  }
  return key;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): AppConfig {
  const blankAsUnset = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ""));
  const parsed = envSchema.safeParse(blankAsUnset);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ConfigError(String(issue?.path[0] ?? "environment"), issue?.message ?? "invalid");
  }
  const e = parsed.data;
  if (e.MASTER_MNEMONIC && e.MASTER_MNEMONIC_FILE) {
    throw new ConfigError("MASTER_MNEMONIC", "set MASTER_MNEMONIC or MASTER_MNEMONIC_FILE, not both");
  }
  if (e.TREASURY_MNEMONIC && e.TREASURY_MNEMONIC_FILE) {
    throw new ConfigError("TREASURY_MNEMONIC", "set TREASURY_MNEMONIC or TREASURY_MNEMONIC_FILE, not both");
  }
  if (e.ENCRYPTION_KEY && e.ENCRYPTION_KEY_FILE) {
    throw new ConfigError("ENCRYPTION_KEY", "set ENCRYPTION_KEY or ENCRYPTION_KEY_FILE, not both");
  }
  let encryptionKey: Buffer | undefined;
  if (e.ENCRYPTION_KEY) encryptionKey = decodeEncryptionKey("ENCRYPTION_KEY", e.ENCRYPTION_KEY);
  if (e.ENCRYPTION_KEY_FILE) {
    encryptionKey = decodeEncryptionKey(
      "ENCRYPTION_KEY_FILE",
      readSecretFile("ENCRYPTION_KEY_FILE", e.ENCRYPTION_KEY_FILE),
    );
  }
  if (e.METRICS_TOKEN && e.METRICS_TOKEN_FILE) {
    throw new ConfigError("METRICS_TOKEN", "set METRICS_TOKEN or METRICS_TOKEN_FILE, not both");
  }
  let metricsTokenValue = e.METRICS_TOKEN;
  if (e.METRICS_TOKEN_FILE) {
    const parsedToken = metricsToken.safeParse(readSecretFile("METRICS_TOKEN_FILE", e.METRICS_TOKEN_FILE));
    if (!parsedToken.success) {
      throw new ConfigError("METRICS_TOKEN_FILE", parsedToken.error.issues[0]?.message ?? "invalid");
    }
    metricsTokenValue = parsedToken.data;
  }
  const mnemonic = e.MASTER_MNEMONIC
    ? { value: e.MASTER_MNEMONIC }
    : e.MASTER_MNEMONIC_FILE
      ? { file: e.MASTER_MNEMONIC_FILE }
      : undefined;
  const treasuryMnemonic = e.TREASURY_MNEMONIC
    ? { value: e.TREASURY_MNEMONIC }
    : e.TREASURY_MNEMONIC_FILE
      ? { file: e.TREASURY_MNEMONIC_FILE }
      : undefined;
  return {
    databaseUrl: e.DATABASE_URL,
    dataDir: resolve(e.DATA_DIR ?? "./.data"),
    port: e.PORT ?? 3000,
    host: e.HOST ?? "0.0.0.0",
    logLevel: e.LOG_LEVEL ?? "info",
    environment: e.PAYMENTS_ENV ?? "sandbox",
    mnemonic,
    treasuryMnemonic,
    encryptionKey,
    chainsConfigPath: e.CHAINS_CONFIG,
    chains: e.CHAINS_CONFIG ? loadChainsConfigFile(e.CHAINS_CONFIG) : undefined,
    rateLimitPerMinute: e.RATE_LIMIT_PER_MINUTE ?? 600,
    eventRetentionDays: e.EVENT_RETENTION_DAYS ?? 30,
    jobHeartbeatSeconds: e.JOB_HEARTBEAT_SECONDS ?? 10,
    indexerLeaseSeconds: e.INDEXER_LEASE_SECONDS ?? 10,
    providers: {
      rates: e.RATES_PROVIDER ?? "sandbox",
      kyc: e.KYC_PROVIDER ?? "sandbox",
      banking: e.BANKING_PROVIDER ?? "sandbox",
    },
    metricsToken: metricsTokenValue,
    sanctions: { screening: e.SANCTIONS_SCREENING ?? "on", listPath: e.SANCTIONS_LIST_PATH },
    statementBank: statementBank(e),
    rates: ratesConfig(e),
    transfers: transferSettings(e),
    liquidation: {
      // Never null: the schema admits only plain decimals with at most two digits.
      feeFixedUsdMicros: decimalToUnits(e.LIQUIDATION_FEE_FIXED_USD ?? "0", USD_DECIMALS) ?? 0n,
      feeBps: e.LIQUIDATION_FEE_BPS ?? 0,
    },
    paymentRequests: {
      rateLockSeconds: e.PAYMENT_REQUEST_RATE_LOCK_SECONDS ?? 900,
      defaultTtlSeconds: e.PAYMENT_REQUEST_TTL_SECONDS ?? 3_600,
      publicUrl: (e.PUBLIC_URL ?? `http://localhost:${e.PORT ?? 3000}`).replace(/\/+$/, ""),
    },
  };
}
