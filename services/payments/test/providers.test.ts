import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ConfigError, loadConfig } from "@mp/core";
import { createDatabase } from "@mp/db";
import { RateUnavailableError } from "@mp/providers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  NEEDS_SHARED,
  SHARED_FIXTURES_PRESENT,
  sharedFixture,
} from "../../../packages/providers/test/shared-fixtures.ts";
import { startTickerServer, type TickerServer } from "../../../packages/providers/test/ticker-server.ts";
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
    // The production KYC and banking providers pass; the sandbox rates are still refused.
    expect(
      refusal({ PAYMENTS_ENV: "production", KYC_PROVIDER: "manual", BANKING_PROVIDER: "statement", ...BANK }),
    ).toMatch(/^RATES_PROVIDER: sandbox providers/);
  });

  it("builds every production provider in production: Chainlink, Kraken or both combined", () => {
    const production = { PAYMENTS_ENV: "production", KYC_PROVIDER: "manual", BANKING_PROVIDER: "statement", ...BANK };
    const rpc = { RATES_RPC_URL: "http://127.0.0.1:9" };
    expect(createProviders(loadConfig({ ...production, RATES_PROVIDER: "chainlink", ...rpc }), db).rates.name).toBe(
      "chainlink",
    );
    expect(createProviders(loadConfig({ ...production, RATES_PROVIDER: "kraken" }), db).rates.name).toBe("kraken");
    expect(createProviders(loadConfig({ ...production, RATES_PROVIDER: "combined", ...rpc }), db).rates.name).toBe(
      "combined(chainlink,kraken)",
    );
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

describe("rate provider settings", () => {
  let dir: string;
  let ticker: TickerServer;
  const file = (name: string, content: unknown) => {
    const path = join(dir, name);
    writeFileSync(path, typeof content === "string" ? content : JSON.stringify(content));
    return path;
  };
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "mprates-"));
    ticker = await startTickerServer();
  });
  afterAll(async () => {
    await ticker?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("refuses a bad setting with one line naming it, never echoing the RPC URL", () => {
    expect(refusal({ RATES_PROVIDER: "coingecko" })).toMatch(/^RATES_PROVIDER: /);
    expect(refusal({ RATES_PROVIDER: "chainlink" })).toBe(
      "RATES_RPC_URL: required with RATES_PROVIDER=chainlink (the chain the feeds are on)",
    );
    expect(refusal({ RATES_PROVIDER: "combined" })).toMatch(/^RATES_RPC_URL: required with RATES_PROVIDER=combined/);
    const secretUrl = "wss://mainnet.example/v3/secret-key-0123";
    const badUrl = refusal({ RATES_PROVIDER: "chainlink", RATES_RPC_URL: secretUrl });
    expect(badUrl).toBe("RATES_RPC_URL: must be an http(s) URL");
    expect(refusal({ RATES_TICKER_URL: "not a url" })).toBe("RATES_TICKER_URL: must be an http(s) URL");
    expect(refusal({ RATES_MAX_SPREAD_BPS: "1%" })).toBe("RATES_MAX_SPREAD_BPS: must be a whole number");
    expect(refusal({ RATES_MIN_SOURCES: "3" })).toBe("RATES_MIN_SOURCES: must be between 1 and 2");
    expect(refusal({ RATES_STABLECOIN_PAR_BPS: "5000" })).toBe("RATES_STABLECOIN_PAR_BPS: must be between 0 and 1000");
    expect(refusal({ RATES_CACHE_MS: "-1" })).toBe("RATES_CACHE_MS: must be a whole number");

    const chainlink = { RATES_PROVIDER: "chainlink", RATES_RPC_URL: "http://127.0.0.1:9" };
    expect(refusal({ ...chainlink, RATES_FEEDS_FILE: join(dir, "absent.json") })).toBe(
      `RATES_FEEDS_FILE: cannot read file ${join(dir, "absent.json")}`,
    );
    const notJson = file("not-json.json", "{BTC:");
    expect(refusal({ ...chainlink, RATES_FEEDS_FILE: notJson })).toBe(
      `RATES_FEEDS_FILE: file ${notJson} is not valid JSON`,
    );
    const badFeed = file("bad-feed.json", { BTC: { address: "0x1234", heartbeatSeconds: 3600 } });
    expect(refusal({ ...chainlink, RATES_FEEDS_FILE: badFeed })).toBe(
      "RATES_FEEDS_FILE: invalid feeds at BTC.address: not an EVM address",
    );
    const noHeartbeat = file("no-heartbeat.json", { BTC: { address: `0x${"11".repeat(20)}` } });
    expect(refusal({ ...chainlink, RATES_FEEDS_FILE: noHeartbeat })).toMatch(
      /^RATES_FEEDS_FILE: invalid feeds at BTC.heartbeatSeconds: /,
    );
    const inverted = file("inverted.json", { BTC: { min: "100000", max: "1000" } });
    expect(refusal({ RATES_PROVIDER: "kraken", RATES_BOUNDS_FILE: inverted })).toBe(
      "RATES_BOUNDS_FILE: invalid bounds at BTC: min is above max",
    );
    const notDecimal = file("not-decimal.json", { ETH: { min: "1e3" } });
    expect(refusal({ RATES_PROVIDER: "kraken", RATES_BOUNDS_FILE: notDecimal })).toBe(
      "RATES_BOUNDS_FILE: invalid bounds at ETH.min: not a plain decimal string",
    );
  });

  describe.skipIf(!SHARED_FIXTURES_PRESENT)(`on recorded Kraken answers${NEEDS_SHARED}`, () => {
    // Kraken's real answer, dated now by the server (a recorded Date would be long stale).
    const recorded = () =>
      ticker.reply({ body: sharedFixture("exchange-tickers/kraken-ticker-all-pairs-2026-06-24.json") });

    it("RATES_TICKER_URL, RATES_BOUNDS_FILE and RATES_STABLECOIN_PAR_BPS reach the Kraken provider", async () => {
      recorded();
      ticker.requests.length = 0;
      const bounds = file("bounds.json", { BTC: { min: "1000", max: "50000" } });
      const { rates } = createProviders(
        loadConfig({
          RATES_PROVIDER: "kraken",
          RATES_TICKER_URL: ticker.url,
          RATES_BOUNDS_FILE: bounds,
          RATES_STABLECOIN_PAR_BPS: "10",
        }),
        db,
      );
      const listed = await rates.listRates();
      const byAsset = Object.fromEntries(listed.map((r) => [r.fromCurrency, r]));
      // BTC at 61018.6 is above the operator's maximum: refused, not listed, not valued.
      expect(byAsset.BTC).toBeUndefined();
      await expect(rates.rateFor("BTC")).rejects.toBeInstanceOf(RateUnavailableError);
      expect(byAsset.ETH).toMatchObject({ rate: "1644.62", source: "kraken:ETH/USD" });
      // USDC 3.5 bps from par rounds to 1; USDT 15.35 bps is outside a 10 bps band: the market rate.
      expect(byAsset.USDC?.rate).toBe("1");
      expect(byAsset.USDT?.rate).toBe("0.998465");
      // One request served the list and the reads after it (Kraken's answer is used for 60 s).
      await rates.rateFor("ETH");
      expect(ticker.requests).toEqual(["/0/public/Ticker?assetVersion=1"]);
    });

    it("combined: RATES_MIN_SOURCES decides whether one source down stops valuing", async () => {
      recorded();
      const feeds = file("eth-feed.json", { ETH: { address: `0x${"22".repeat(20)}`, heartbeatSeconds: 3600 } });
      const combined = {
        RATES_PROVIDER: "combined",
        RATES_RPC_URL: "http://127.0.0.1:9", // nothing listens: the Chainlink source is down
        RATES_FEEDS_FILE: feeds,
        RATES_TICKER_URL: ticker.url,
        RATES_CACHE_MS: "0",
      };
      const both = createProviders(loadConfig(combined), db).rates;
      const refused = await both.rateFor("ETH").then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(refused).toBeInstanceOf(RateUnavailableError);
      expect((refused as RateUnavailableError).reason).toBe("too_few_sources");
      const one = createProviders(loadConfig({ ...combined, RATES_MIN_SOURCES: "1" }), db).rates;
      expect(await one.rateFor("ETH")).toMatchObject({ rate: "1644.62", source: "median(kraken:ETH/USD)" });
    });
  });
});
