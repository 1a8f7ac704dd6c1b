import { type AppDeps, WalletSlots } from "@mp/api";
import { createLogger } from "@mp/core";
import { createCustody } from "@mp/custody";
import type { Queryable } from "@mp/db";
import { checkLedger } from "@mp/ledger";
import { afterAll, beforeAll, expect } from "vitest";
import { KEY_SCHEMES } from "../../services/payments/src/chain-families.ts";
import { type ApiHarness, eventually, startApiHarness, type TestMerchant } from "../support/api-harness.ts";
import { documentedCall } from "../support/documented-calls.ts";
import { late } from "../support/late.ts";
import { chainsOnNoNode } from "./chains-on-no-node.ts";
import { nextKey, tier1Customer, tier2Customer } from "./verification-fixtures.ts";

/** Spec 2.9: the keys of the funding response, of its `funding` and of its `intent`, exactly (sorted). */
export const SPEC_2_9_KEYS = {
  response: ["customer_id", "funding", "intent", "transfer_id", "transfer_status"],
  funding: ["expires_at", "fee", "method", "mode", "payer", "rate", "required_amount"],
  intent: [
    "bank_transfer",
    "crypto_deposit",
    "expires_at",
    "flag",
    "id",
    "method",
    "payer",
    "purpose",
    "required_amount",
    "reusable",
    "status",
  ],
};

/** The source of a transfer the customer funds with USDC on BASE. */
export const USDC_ON_BASE = { method: "CRYPTO_DEPOSIT", asset: "USDC", network: "BASE" };

/** An API answer's `data` (a response body, read field by field). */
type AnswerData = Awaited<ReturnType<ApiHarness["call"]>>["body"]["data"];

/** A Base address that is not ours: where test transfers pay out. */
export const PAYEE = "0x2222222222222222222222222222222222222222";

/** The transfer requests tests make against a running API, every answer checked against its /openapi.json. */
export interface TransfersClient {
  call(
    m: TestMerchant,
    path: string,
    init?: { method?: string; idempotencyKey?: string; json?: unknown },
  ): ReturnType<ApiHarness["call"]>;
  /** A Tier-2 customer with an ACTIVE USD virtual account. */
  bankCustomer(m: TestMerchant): Promise<{ customerId: string; virtualAccountId: string }>;
  quote(
    m: TestMerchant,
    customerId: string,
    over?: Record<string, unknown>,
  ): Promise<{ id: string; source: unknown; [field: string]: unknown }>;
  /** POST /v1/quotes for `customerId` with `body` (source, destination, amount): the answer as it is. */
  requestQuote(m: TestMerchant, customerId: string, body: Record<string, unknown>): ReturnType<ApiHarness["call"]>;
  transfer(m: TestMerchant, quoteId: string, key?: string): ReturnType<ApiHarness["call"]>;
  /**
   * A transfer the customer funds just in time with USDC on BASE: quote(m, customerId, over) from
   * USDC_ON_BASE, the transfer created (201), and its funding answer with the intent's deposit address.
   */
  cryptoTransfer(
    m: TestMerchant,
    customerId: string,
    over?: Record<string, unknown>,
  ): Promise<{ transfer: AnswerData; funding: AnswerData; address: string }>;
  /** POST /v1/transfers/{id}/cancel with a fresh idempotency key: the answer as it is. */
  cancel(m: TestMerchant, transferId: string): ReturnType<ApiHarness["call"]>;
  credit(
    m: TestMerchant,
    virtualAccountId: string,
    amount: string,
    reference?: string,
    key?: string,
  ): ReturnType<ApiHarness["call"]>;
  balance(m: TestMerchant): Promise<{ available: string; reserved: string }>;
}

/** The API with BASE (and its USDC) configured for transfers, in process (see TransfersClient). */
export interface TransfersApi extends TransfersClient {
  api: ApiHarness;
  expectLedgerClean(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * The receive addresses of a run on real test nodes: another mnemonic than the harness's (anvil's
 * development accounts, which the test token's mint pays), so a funding address receives only what a
 * test pays it.
 */
const NODE_RECEIVE_MNEMONIC = "legal winner thank year wave sausage worth useful legal winner thank yellow";

/**
 * `chains`: the chains transfers may use, on test nodes (default: BASE with its USDC, on no node).
 */
export async function startTransfersApi(options: { chains?: AppDeps["chains"] } = {}): Promise<TransfersApi> {
  const custody = options.chains
    ? createCustody(NODE_RECEIVE_MNEMONIC, { bitcoinNetwork: "regtest", schemes: KEY_SCHEMES })
    : undefined;
  const addresses = custody && {
    deriveWalletAddresses: (account: number, index: number) => custody.deriveWalletAddresses(account, index),
  };
  const api = await startApiHarness({
    workers: true,
    overrides: (db) => ({
      // TRANSFERS_DEBUG=1 shows the app's error logs (a 500's cause); silent otherwise.
      ...(process.env.TRANSFERS_DEBUG ? { logger: createLogger({ level: "error" }) } : {}),
      ...(addresses ? { addresses, walletSlots: new WalletSlots(db, addresses) } : {}),
      chains: options.chains ?? chainsOnNoNode(["BASE"]),
    }),
  });
  return {
    ...(await transfersClient(api)),
    api,
    async expectLedgerClean() {
      const check = await checkLedger(api.db);
      expect(check.problems).toEqual([]);
      expect(check.ok).toBe(true);
    },
    stop: () => api.stop(),
  };
}

/** TransfersClient over `api`: the in-process harness or a `payments serve` process (callApi). */
export async function transfersClient(api: Pick<ApiHarness, "call">): Promise<TransfersClient> {
  const documented = await documentedCall(api);
  const call: TransfersApi["call"] = (m, path, init = {}) => documented(m.apiKey, path, init);
  const requestQuote: TransfersClient["requestQuote"] = (m, customerId, body) =>
    call(m, "/v1/quotes", {
      method: "POST",
      idempotencyKey: nextKey("quote"),
      json: { customer_id: customerId, ...body },
    });
  const quote: TransfersClient["quote"] = async (m, customerId, over = {}) => {
    const res = await requestQuote(m, customerId, {
      source: { method: "BANK_TRANSFER" },
      destination: { type: "CRYPTO_ADDRESS", asset: "USDC", network: "BASE", address: PAYEE },
      source_amount: "100.00",
      ...over,
    });
    expect(res.status, res.text).toBe(201);
    return res.body.data;
  };
  const transfer: TransfersClient["transfer"] = (m, quoteId, key = nextKey("transfer")) =>
    call(m, "/v1/transfers", { method: "POST", idempotencyKey: key, json: { quote_id: quoteId } });

  return {
    call,
    async bankCustomer(m) {
      const customerId = await tier2Customer(api, m);
      const opened = await call(m, "/v1/virtual-accounts", {
        method: "POST",
        idempotencyKey: nextKey("va"),
        json: { customer_id: customerId, currency: "USD" },
      });
      const virtualAccountId = opened.body.data.id as string;
      await eventually(async () => {
        const res = await call(m, `/v1/virtual-accounts/${virtualAccountId}`);
        return res.body.data.status === "ACTIVE" ? true : undefined;
      }, 20_000);
      return { customerId, virtualAccountId };
    },
    requestQuote,
    quote,
    transfer,
    async cryptoTransfer(m, customerId, over = {}) {
      const created = await transfer(m, (await quote(m, customerId, { source: USDC_ON_BASE, ...over })).id);
      expect(created.status, created.text).toBe(201);
      const funding = (await call(m, `/v1/transfers/${created.body.data.id}/funding`)).body.data;
      return { transfer: created.body.data, funding, address: funding.intent.crypto_deposit.address as string };
    },
    cancel(m, transferId) {
      return call(m, `/v1/transfers/${transferId}/cancel`, { method: "POST", idempotencyKey: nextKey("cancel") });
    },
    credit(m, virtualAccountId, amount, reference, key = nextKey("credit")) {
      return call(m, "/v1/sandbox/bank-deposits", {
        method: "POST",
        idempotencyKey: key,
        json: { virtual_account_id: virtualAccountId, amount, ...(reference ? { reference } : {}) },
      });
    },
    async balance(m) {
      const res = await call(m, "/v1/balance");
      return { available: res.body.data.available, reserved: res.body.data.reserved };
    },
  };
}

/**
 * The opening the transfers test files share: the API (startTransfersApi), one merchant and one bank
 * customer of it, started in the describe block's beforeAll and stopped in its afterAll.
 */
export function useTransfersApi(): {
  t: TransfersApi;
  a: TestMerchant;
  customer: { customerId: string; virtualAccountId: string };
} {
  let started:
    | { t: TransfersApi; a: TestMerchant; customer: { customerId: string; virtualAccountId: string } }
    | undefined;
  beforeAll(async () => {
    const t = await startTransfersApi();
    const a = await t.api.merchant();
    started = { t, a, customer: await t.bankCustomer(a) };
  });
  afterAll(() => started?.t.stop());
  return {
    t: late("the transfers API", () => started?.t),
    a: late("the merchant", () => started?.a),
    customer: late("the bank customer", () => started?.customer),
  };
}

const MONEY_KEYS = ["asset", "currency", "network", "value"];

/** Spec 2.9: the funding answer has exactly these fields, so nested, every amount a Money object. */
// biome-ignore lint/suspicious/noExplicitAny: a response body, checked field by field
export function expectFundingShape(f: any): void {
  expect(Object.keys(f).sort()).toEqual(SPEC_2_9_KEYS.response);
  expect(Object.keys(f.funding).sort()).toEqual(SPEC_2_9_KEYS.funding);
  expect(Object.keys(f.intent).sort()).toEqual(SPEC_2_9_KEYS.intent);
  for (const money of [f.funding.required_amount, f.funding.fee, f.intent.required_amount]) {
    expect(Object.keys(money).sort()).toEqual(MONEY_KEYS);
  }
}

/** The funding shape of a bank-funded transfer: a unique reference the narration repeats. */
// biome-ignore lint/suspicious/noExplicitAny: a response body, checked field by field
export function expectBankFundingShape(f: any): void {
  expectFundingShape(f);
  expect(Object.keys(f.intent.bank_transfer).sort()).toEqual([
    "account_name",
    "account_number",
    "bank_code",
    "bank_name",
    "narration",
    "reference",
  ]);
  expect(f.intent.bank_transfer.reference).toMatch(/^TRF[A-Z2-9]{12}$/);
  expect(f.intent.bank_transfer.narration).toContain(f.intent.bank_transfer.reference);
  expect(f.intent.bank_transfer.bank_code).toMatch(/^\d{9}$/);
}

/**
 * A new merchant of the API for the crypto-funding tests, charging a deposit fee of 1.5 % + 0.025 USD
 * (the part of a funding deposit an intent takes does not pay it; late money and an excess do: issue
 * 27), and a Tier-1 customer of it: the gate of crypto funding, no Tier 2 needed.
 */
export async function cryptoFundingMerchant(t: TransfersApi): Promise<{ merchant: TestMerchant; customerId: string }> {
  const merchant = await t.api.merchant();
  await t.api.db.query("UPDATE merchants SET fee_bps = 150, fee_fixed_micros = 25000 WHERE id = $1", [
    merchant.merchantId,
  ]);
  return { merchant, customerId: await tier1Customer(t.api, merchant) };
}

/** A new merchant of the API whose return policy is `return` (issue 29: stray money goes back to its payer). */
export async function returnPolicyMerchant(t: TransfersApi): Promise<TestMerchant> {
  const m = await t.api.merchant();
  await t.api.db.query("UPDATE merchants SET return_policy = 'return' WHERE id = $1", [m.merchantId]);
  return m;
}

/** What a JIT-funded transfer paid out in full goes through (transferStatuses). */
export const COMPLETED_JIT_STATUSES = ["AWAITING_MERCHANT_FUNDING", "FUNDED", "PROCESSING", "COMPLETED"];

/** The statuses transfer `id` went through, oldest first (its audited transitions). */
export async function transferStatuses(db: Queryable, id: string): Promise<string[]> {
  const { rows } = await db.query<{ to_status: string }>(
    "SELECT to_status FROM transfer_transitions WHERE object_id = $1 ORDER BY id",
    [id],
  );
  return rows.map((r) => r.to_status);
}
