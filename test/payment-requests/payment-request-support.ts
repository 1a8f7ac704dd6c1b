import { resolveChainConfig } from "@mp/core";
import type { RateProvider } from "@mp/providers";
import { createSandboxRateProvider } from "@mp/providers";
import { expect } from "vitest";
import { nextKey } from "../api/verification-fixtures.ts";
import type { ApiHarness, TestMerchant } from "../support/api-harness.ts";
import { documentedCall } from "../support/documented-calls.ts";

export const BASE_USDC = "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913";

/** BASE with its USDC and Bitcoin (regtest), on no node: enough to create and show requests. */
export const OFFLINE_CHAINS = {
  BASE: resolveChainConfig("BASE", {
    rpcUrl: "http://127.0.0.1:9",
    tokens: [{ asset: "USDC", address: BASE_USDC, decimals: 6 }],
  }),
  BITCOIN: resolveChainConfig("BITCOIN", { rpcUrl: "http://127.0.0.1:9", network: "regtest" }),
};

/** The sandbox's rates, with the BTC rate the test sets (a market move between two quotes). */
export function movableRates(): RateProvider & { setBtc(rate: string | undefined): void } {
  const sandbox = createSandboxRateProvider();
  let btc: string | undefined;
  return {
    name: "sandbox, BTC as the test sets it",
    listRates: () => sandbox.listRates(),
    async rateFor(asset) {
      const rate = await sandbox.rateFor(asset);
      return asset === "BTC" && btc ? { ...rate, rate: btc } : rate;
    },
    setBtc(rate) {
      btc = rate;
    },
  };
}

/** Calls against a running API, each answer checked against its live /openapi.json. */
export async function checkedCalls(api: Pick<ApiHarness, "call">) {
  const call = await documentedCall(api);
  return {
    call,
    /** POST /v1/payment-requests; 201 expected unless `status` says otherwise. */
    async create(m: TestMerchant, json: Record<string, unknown>, status = 201, key = nextKey("pr")) {
      const res = await call(m.apiKey, "/v1/payment-requests", { method: "POST", idempotencyKey: key, json });
      expect(res.status, res.text).toBe(status);
      return res;
    },
    get: (m: TestMerchant, id: string) => call(m.apiKey, `/v1/payment-requests/${id}`),
    /** The public status of a hosted page (its path from hosted_url). */
    async checkout(hostedUrl: string) {
      const path = new URL(hostedUrl).pathname;
      const res = await call(undefined, `${path}/status`);
      expect(res.status, res.text).toBe(200);
      return res.body.data;
    },
  };
}

/** 25.00 USD, payable in USDC on BASE or BTC on Bitcoin: what a request of the tests asks. */
export const USD_25_ON_TWO_CHAINS = {
  amount: "25.00",
  currency: "USD",
  accepted: [
    { network: "BASE", asset: "USDC" },
    { network: "BITCOIN", asset: "BTC" },
  ],
};

/** The 25.00 USD request of the issue: USDC on BASE and BTC on Bitcoin. */
export const USD_25 = {
  ...USD_25_ON_TWO_CHAINS,
  description: "Order 1234: two tickets",
  reference: "order-1234",
  success_url: "https://shop.example/thanks",
  cancel_url: "https://shop.example/cart",
  metadata: { order: "1234" },
};
