import { CHAIN_IDS } from "@mp/core";
import { isAddress } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ApiHarness, startApiHarness, type TestMerchant } from "../support/api-harness.ts";
import { deferred } from "../support/deferred.ts";

describe("wallets and deposit addresses", () => {
  let api: ApiHarness;
  let a: TestMerchant;
  let b: TestMerchant;
  let customerA: string;
  let customerB: string;
  let n = 0;
  const post = (m: TestMerchant, path: string, json: unknown, key = `k-${++n}`) =>
    api.call(m.apiKey, path, { method: "POST", idempotencyKey: key, json });

  beforeAll(async () => {
    api = await startApiHarness();
    a = await api.merchant();
    b = await api.merchant();
    customerA = (await post(a, "/v1/customers", { type: "INDIVIDUAL", first_name: "A", last_name: "A" })).body.data.id;
    customerB = (await post(b, "/v1/customers", { type: "INDIVIDUAL", first_name: "B", last_name: "B" })).body.data.id;
  });
  afterAll(() => api.stop());

  it("creates a wallet with ten ACTIVE destinations, one per chain, the EVM ones sharing an address", async () => {
    const res = await post(a, "/v1/wallets", { customer_id: customerA, label: "Main" });
    expect(res.status).toBe(201);
    const wallet = res.body.data;
    expect(wallet).toMatchObject({
      merchant_id: a.merchantId,
      customer_id: customerA,
      label: "Main",
      status: "ACTIVE",
    });
    expect(wallet.destinations.map((d: { chain: string }) => d.chain)).toEqual([...CHAIN_IDS]);
    for (const d of wallet.destinations) {
      expect(d).toMatchObject({ id: expect.any(String), status: "ACTIVE", failure_reason: null });
      expect(Date.parse(d.provisioned_at)).not.toBeNaN();
    }
    const evm = wallet.destinations.slice(0, 7).map((d: { address: string }) => d.address);
    expect(new Set(evm).size).toBe(1);
    expect(isAddress(evm[0], { strict: true })).toBe(true);
    const byChain = Object.fromEntries(
      wallet.destinations.map((d: { chain: string; address: string }) => [d.chain, d.address]),
    );
    expect(byChain.TRON).toMatch(/^T[1-9A-HJ-NP-Za-km-z]{33}$/);
    expect(byChain.BITCOIN).toMatch(/^(bc1q|tb1q|bcrt1q)/);
    expect(byChain.SOLANA).toMatch(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/);

    const got = await api.call(a.apiKey, `/v1/wallets/${wallet.id}`);
    expect(got.body.data).toEqual(wallet);
  });

  it("validates the body and answers 404 for an unknown or another merchant's customer, creating nothing", async () => {
    expect((await post(a, "/v1/wallets", { customer_id: customerA })).status).toBe(400);
    expect((await post(a, "/v1/wallets", { customer_id: "x", label: "L" })).status).toBe(400);
    expect((await post(a, "/v1/wallets", { customer_id: customerA, label: "" })).status).toBe(400);
    const foreign = await post(a, "/v1/wallets", { customer_id: customerB, label: "L" });
    expect(foreign.status).toBe(404);
    expect(foreign.body).toMatchObject({ data: {}, error: "not_found" });
    const unknown = await post(a, "/v1/wallets", { customer_id: "6f1c1c1e-1111-4111-8111-111111111111", label: "L" });
    expect(unknown.status).toBe(404);
    const count = await api.db.query("SELECT count(*)::int AS n FROM wallets WHERE customer_id = $1", [customerB]);
    expect(count.rows[0]?.n).toBe(0);
  });

  it("replays a wallet creation for the same idempotency key (same addresses, no new index)", async () => {
    const first = await post(a, "/v1/wallets", { customer_id: customerA, label: "Idem" }, "wallet-idem");
    const second = await post(a, "/v1/wallets", { customer_id: customerA, label: "Idem" }, "wallet-idem");
    expect(second.text).toBe(first.text);
    const count = await api.db.query("SELECT count(*)::int AS n FROM wallets WHERE label = 'Idem'");
    expect(count.rows[0]?.n).toBe(1);
  });

  it("gives 50 concurrent creations for one merchant 50 wallets with 50 distinct indexes and addresses", async () => {
    const m = await api.merchant();
    const customer = (await post(m, "/v1/customers", { type: "INDIVIDUAL", first_name: "C", last_name: "C" })).body.data
      .id;
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) => post(m, "/v1/wallets", { customer_id: customer, label: `w${i}` })),
    );
    expect(results.map((r) => r.status)).toEqual(Array(50).fill(201));
    const rows = await api.db.query<{ derivation_index: number }>(
      "SELECT derivation_index FROM wallets WHERE merchant_id = $1 ORDER BY derivation_index",
      [m.merchantId],
    );
    expect(rows.rows.map((r) => r.derivation_index)).toEqual(Array.from({ length: 50 }, (_, i) => i));
    const addresses = new Set(results.map((r) => r.body.data.destinations[0].address));
    expect(addresses.size).toBe(50);
  });

  it("spends no index on a replay, a 409 key conflict, a 404 or a concurrent duplicate: the next wallet takes the next index", async () => {
    const m = await api.merchant();
    const customer = (await post(m, "/v1/customers", { type: "INDIVIDUAL", first_name: "D", last_name: "D" })).body.data
      .id;
    const indexes = async () =>
      (
        await api.db.query<{ derivation_index: number }>(
          "SELECT derivation_index FROM wallets WHERE merchant_id = $1 ORDER BY derivation_index",
          [m.merchantId],
        )
      ).rows.map((r) => r.derivation_index);
    const first = await post(m, "/v1/wallets", { customer_id: customer, label: "first" }, "spend-1");
    expect(first.status).toBe(201);
    expect((await post(m, "/v1/wallets", { customer_id: customer, label: "first" }, "spend-1")).text).toBe(first.text);
    expect((await post(m, "/v1/wallets", { customer_id: customer, label: "other body" }, "spend-1")).status).toBe(409);
    const unknown = "6f1c1c1e-2222-4222-8222-222222222222";
    expect((await post(m, "/v1/wallets", { customer_id: unknown, label: "x" }, "spend-404")).status).toBe(404);
    const duplicates = await Promise.all(
      Array.from({ length: 10 }, () => post(m, "/v1/wallets", { customer_id: customer, label: "dup" }, "spend-dup")),
    );
    expect(new Set(duplicates.map((r) => r.body.data.id)).size).toBe(1);
    expect(duplicates.map((r) => r.status)).toEqual(Array(10).fill(201));
    const next = await post(m, "/v1/wallets", { customer_id: customer, label: "next" }, "spend-2");
    expect(next.status).toBe(201);
    expect(await indexes()).toEqual([0, 1, 2]);
  });

  it("spends no index on concurrent duplicates even when a later duplicate reaches the database first", async () => {
    // The interleaving a loaded machine produces by chance, forced: the transactions of the first two
    // requests to open one are held until a third has finished, so the winner of the key is a request
    // that took its index after two others.
    const m = await api.merchant();
    const customer = (await post(m, "/v1/customers", { type: "INDIVIDUAL", first_name: "E", last_name: "E" })).body.data
      .id;
    expect((await post(m, "/v1/wallets", { customer_id: customer, label: "first" })).status).toBe(201);
    const db = api.deps.db;
    let opened = 0;
    const { promise: thirdFinished, resolve: releaseHeld } = deferred();
    // Read per request by the app: the same real database, its transactions only delayed.
    api.deps.db = {
      ...db,
      async tx(fn, options) {
        const n = ++opened;
        if (n <= 2) await Promise.race([thirdFinished, new Promise((r) => setTimeout(r, 500))]);
        try {
          return await db.tx(fn, options);
        } finally {
          if (n === 3) releaseHeld();
        }
      },
    };
    try {
      const duplicates = await Promise.all(
        Array.from({ length: 6 }, () => post(m, "/v1/wallets", { customer_id: customer, label: "dup" }, "forced-dup")),
      );
      expect(duplicates.map((r) => r.status)).toEqual(Array(6).fill(201));
      expect(new Set(duplicates.map((r) => r.body.data.id)).size).toBe(1);
    } finally {
      api.deps.db = db;
    }
    expect((await post(m, "/v1/wallets", { customer_id: customer, label: "next" })).status).toBe(201);
    const rows = await api.db.query<{ derivation_index: number }>(
      "SELECT derivation_index FROM wallets WHERE merchant_id = $1 ORDER BY derivation_index",
      [m.merchantId],
    );
    expect(rows.rows.map((r) => r.derivation_index)).toEqual([0, 1, 2]);
  });

  it("isolates merchants on wallets and addresses", async () => {
    const wallet = (await post(a, "/v1/wallets", { customer_id: customerA, label: "Private" })).body.data;
    expect((await api.call(b.apiKey, `/v1/wallets/${wallet.id}`)).status).toBe(404);
    const list = await api.call(b.apiKey, "/v1/wallets?limit=200");
    expect(list.body.data.items.map((w: { id: string }) => w.id)).not.toContain(wallet.id);
    const search = await api.call(b.apiKey, `/v1/wallets?q=${wallet.destinations[0].address}`);
    expect(search.body.data.total).toBe(0);
    const address = await api.call(b.apiKey, `/v1/addresses/${wallet.destinations[0].id}`);
    expect(address.status).toBe(404);
    expect(address.body).toEqual({ error: { code: "not_found", message: expect.any(String) } });
  });

  it("serves one destination as a deposit address, with nested errors", async () => {
    const wallet = (await post(a, "/v1/wallets", { customer_id: customerA, label: "Addr" })).body.data;
    const destination = wallet.destinations[8];
    const res = await api.call(a.apiKey, `/v1/addresses/${destination.id}`);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({
      id: destination.id,
      merchant_id: a.merchantId,
      chain: destination.chain,
      address: destination.address,
      status: "ACTIVE",
    });
    const bad = await api.call(a.apiKey, "/v1/addresses/nope");
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ error: { code: "validation_error", message: expect.stringContaining("id") } });
    const unauth = await api.call(undefined, `/v1/addresses/${destination.id}`);
    expect(unauth.body).toEqual({ error: { code: "unauthorized", message: expect.any(String) } });
  });

  it("filters by customer, chain and status, searches label/address/id, and paginates", async () => {
    const m = await api.merchant();
    const c1 = (await post(m, "/v1/customers", { type: "INDIVIDUAL", first_name: "1", last_name: "1" })).body.data.id;
    const c2 = (await post(m, "/v1/customers", { type: "INDIVIDUAL", first_name: "2", last_name: "2" })).body.data.id;
    const w1 = (await post(m, "/v1/wallets", { customer_id: c1, label: "Treasury EUR" })).body.data;
    const w2 = (await post(m, "/v1/wallets", { customer_id: c1, label: "Payroll" })).body.data;
    const w3 = (await post(m, "/v1/wallets", { customer_id: c2, label: "treasury usd" })).body.data;
    const ids = (res: { body: { data: { items: Array<{ id: string }> } } }) => res.body.data.items.map((w) => w.id);

    expect(ids(await api.call(m.apiKey, "/v1/wallets"))).toEqual([w3.id, w2.id, w1.id]);
    expect(ids(await api.call(m.apiKey, `/v1/wallets?customer_id=${c1}`))).toEqual([w2.id, w1.id]);
    expect(ids(await api.call(m.apiKey, "/v1/wallets?chain=SOLANA"))).toEqual([w3.id, w2.id, w1.id]);
    await api.db.query("UPDATE wallets SET status = 'DISABLED' WHERE id = $1", [w2.id]);
    expect(ids(await api.call(m.apiKey, "/v1/wallets?status=DISABLED"))).toEqual([w2.id]);
    expect(ids(await api.call(m.apiKey, "/v1/wallets?status=ACTIVE"))).toEqual([w3.id, w1.id]);
    expect(ids(await api.call(m.apiKey, "/v1/wallets?q=TREASURY"))).toEqual([w3.id, w1.id]);
    const evm = w1.destinations[0].address;
    expect(ids(await api.call(m.apiKey, `/v1/wallets?q=${evm.toLowerCase()}`))).toEqual([w1.id]);
    expect(ids(await api.call(m.apiKey, `/v1/wallets?q=${evm.toUpperCase().replace("0X", "0x")}`))).toEqual([w1.id]);
    const btc = w2.destinations[8].address;
    expect(ids(await api.call(m.apiKey, `/v1/wallets?q=${btc}`))).toEqual([w2.id]);
    expect(ids(await api.call(m.apiKey, `/v1/wallets?q=${w3.id}`))).toEqual([w3.id]);
    expect(ids(await api.call(m.apiKey, "/v1/wallets?q=%25"))).toEqual([]);
    const page = await api.call(m.apiKey, "/v1/wallets?limit=2&page=2");
    expect(page.body.data).toMatchObject({ limit: 2, page: 2, total: 3, total_pages: 2 });
    expect(ids(page)).toEqual([w1.id]);
    for (const bad of ["chain=DOGE", "status=GONE", "customer_id=1", "limit=500"]) {
      expect((await api.call(m.apiKey, `/v1/wallets?${bad}`)).status, bad).toBe(400);
    }
  });
});
