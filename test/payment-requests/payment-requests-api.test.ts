import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { nextKey } from "../api/verification-fixtures.ts";
import { type ApiHarness, startApiHarness, type TestMerchant } from "../support/api-harness.ts";
import { checkedCalls, movableRates, OFFLINE_CHAINS, USD_25 } from "./payment-request-support.ts";

/**
 * POST/GET/list/cancel of payment requests and the public hosted page, in process, every answer
 * checked against the live /openapi.json: fresh addresses, amounts at the locked rate, idempotency,
 * isolation, validation, the page and its status, re-quotes and an expired request's refusal.
 */
describe("payment requests: the API and the hosted page", () => {
  const rates = movableRates();
  let api: ApiHarness;
  let a: TestMerchant;
  let b: TestMerchant;
  let c: Awaited<ReturnType<typeof checkedCalls>>;

  beforeAll(async () => {
    api = await startApiHarness({ overrides: { chains: OFFLINE_CHAINS, rates } });
    [a, b] = await Promise.all([api.merchant(), api.merchant()]);
    c = await checkedCalls(api);
  });
  afterAll(() => api?.stop());

  it("creates a 25.00 USD request: a fresh address per chain, the amount in each asset at the locked rate", async () => {
    const before = Date.now();
    const created = (await c.create(a, USD_25)).body.data;
    expect(created).toMatchObject({
      status: "open",
      amount: "25.00",
      currency: "USD",
      description: USD_25.description,
      reference: "order-1234",
      metadata: { order: "1234" },
      amount_paid: "0.00",
      amount_missing: "25.00",
      payments: [],
      paid_at: null,
    });
    const [usdc, btc] = created.options;
    expect(usdc).toMatchObject({ network: "BASE", asset: "USDC", amount_due: "25", amount_missing: "25", rate: "1" });
    // 25 / 65000 BTC = 38461.5 sat, rounded up.
    expect(btc).toMatchObject({ network: "BITCOIN", asset: "BTC", amount_due: "0.00038462", rate: "65000.00" });
    expect(usdc.payment_uri).toBe(
      `ethereum:${usdc.contract_address}@8453/transfer?address=${usdc.address}&uint256=25000000`,
    );
    expect(btc.payment_uri).toBe(`bitcoin:${btc.address}?amount=0.00038462`);
    // Locked for PAYMENT_REQUEST_RATE_LOCK_SECONDS (900 by default); expires in an hour by default.
    const locked = Date.parse(created.rate_locked_until) - before;
    expect(locked).toBeGreaterThan(895_000);
    expect(locked).toBeLessThan(905_000 + 5_000);
    expect(Date.parse(created.expires_at) - before).toBeGreaterThan(3_595_000);
    expect(created.hosted_url).toMatch(new RegExp(`^${api.url}/pay/ck_[A-Za-z0-9_-]{22}$`));
    expect(created.hosted_url).not.toContain(created.id);

    // Never reused: a second request has other addresses; both are wallets of their own, not listed as wallets.
    const other = (await c.create(a, USD_25)).body.data;
    expect(other.options[0].address).not.toBe(usdc.address);
    expect(other.options[1].address).not.toBe(btc.address);
    const wallets = await api.db.query<{ purpose: string; customer_id: string | null }>(
      `SELECT w.purpose, w.customer_id FROM payment_requests r JOIN wallets w ON w.id = r.wallet_id WHERE r.id = ANY($1::uuid[])`,
      [[created.id, other.id]],
    );
    expect(wallets.rows).toEqual([
      { purpose: "PAYMENT_REQUEST", customer_id: null },
      { purpose: "PAYMENT_REQUEST", customer_id: null },
    ]);
    expect(JSON.stringify((await c.call(a.apiKey, "/v1/wallets")).body.data.items)).not.toContain(usdc.address);

    const events = (await c.call(a.apiKey, `/v1/events?object_id=${created.id}`)).body.data.items;
    expect(events.map((e: { type: string }) => e.type)).toEqual(["payment_request.created"]);
    expect(events[0].data).toEqual(created);
    expect((await c.get(a, created.id)).body.data).toEqual(created);
  });

  it("offers every configured asset by default, and a request in a crypto asset as is", async () => {
    const all = (await c.create(a, { amount: "10.00" })).body.data;
    expect(all.options.map((o: { network: string; asset: string }) => `${o.asset}@${o.network}`)).toEqual([
      "ETH@BASE",
      "USDC@BASE",
      "BTC@BITCOIN",
    ]);
    const inBtc = (await c.create(a, { amount: "0.001", currency: "BTC" })).body.data;
    expect(inBtc).toMatchObject({ amount: "0.001", currency: "BTC" });
    expect(inBtc.options).toEqual([expect.objectContaining({ asset: "BTC", amount_due: "0.001", rate: null })]);
    expect(inBtc.rate_locked_until).toBe(inBtc.expires_at);
  });

  it("is idempotent: the same key replays the answer, another body with it is 409, nothing made twice", async () => {
    const key = nextKey("pr-idem");
    const first = await c.create(a, USD_25, 201, key);
    const again = await c.create(a, USD_25, 201, key);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.body.data).toEqual(first.body.data);
    await c.create(a, { ...USD_25, amount: "26.00" }, 409, key);
    const rows = await api.db.query("SELECT 1 FROM payment_requests WHERE id = $1", [first.body.data.id]);
    expect(rows.rowCount).toBe(1);
    const count = await api.db.query("SELECT count(*)::int AS n FROM events WHERE idempotency_key = $1", [key]);
    expect(count.rows[0]).toEqual({ n: 1 });
  });

  it("keeps merchants apart: another merchant's request is 404 to read, cancel and list", async () => {
    const mine = (await c.create(a, USD_25)).body.data;
    expect((await c.get(b, mine.id)).status).toBe(404);
    const cancel = await c.call(b.apiKey, `/v1/payment-requests/${mine.id}/cancel`, {
      method: "POST",
      idempotencyKey: nextKey("cancel"),
    });
    expect(cancel.status).toBe(404);
    expect((await c.call(b.apiKey, "/v1/payment-requests")).body.data.items).toEqual([]);
    expect((await c.get(a, mine.id)).body.data.status).toBe("open");
    // A customer of another merchant cannot be named.
    const theirs = await c.call(b.apiKey, "/v1/customers", {
      method: "POST",
      idempotencyKey: nextKey("cust"),
      json: { type: "INDIVIDUAL", first_name: "B", last_name: "C" },
    });
    await c.create(a, { ...USD_25, customer_id: theirs.body.data.id }, 404);
  });

  it("refuses bad input with a clear 4xx and creates nothing", async () => {
    const count = async () =>
      (await api.db.query<{ n: number }>("SELECT count(*)::int AS n FROM payment_requests")).rows[0]?.n;
    const before = await count();
    const refusals: Array<[Record<string, unknown>, number, string]> = [
      [{ ...USD_25, amount: "25.001" }, 400, "amount"],
      [{ ...USD_25, amount: "0" }, 400, "amount"],
      [{ ...USD_25, amount: "-1" }, 400, "amount"],
      [{ ...USD_25, accepted: [{ network: "BASE", asset: "DOGE" }] }, 400, "accepted[0]"],
      [{ ...USD_25, accepted: [{ network: "SOLANA", asset: "SOL" }] }, 400, "accepted[0]"],
      [
        {
          ...USD_25,
          accepted: [
            { network: "BASE", asset: "USDC" },
            { network: "BASE", asset: "USDC" },
          ],
        },
        400,
        "twice",
      ],
      [{ ...USD_25, accepted: [] }, 400, "accepted"],
      [{ ...USD_25, currency: "BTC" }, 400, "accepted[0]"],
      [{ ...USD_25, currency: "DOGE", accepted: undefined }, 400, "currency"],
      [{ ...USD_25, expires_at: new Date(Date.now() - 1000).toISOString() }, 400, "expires_at"],
      [{ ...USD_25, expires_at: new Date(Date.now() + 40 * 86_400_000).toISOString() }, 400, "expires_at"],
      [{ ...USD_25, success_url: "javascript:alert(1)" }, 400, "success_url"],
      [{ ...USD_25, unknown_field: 1 }, 400, "unknown_field"],
      [{ ...USD_25, metadata: { a: 1 } }, 400, "metadata"],
      // 1 cent in BTC is 16 sat: below Bitcoin's dust limit.
      [{ ...USD_25, amount: "0.01", accepted: [{ network: "BITCOIN", asset: "BTC" }] }, 422, "546"],
    ];
    for (const [body, status, named] of refusals) {
      const res = await c.create(a, body, status);
      expect(res.text, JSON.stringify(body)).toContain(named);
    }
    // By default an option below its chain's minimum is left out, not refused.
    const small = (await c.create(a, { amount: "0.01" })).body.data;
    expect(small.options.map((o: { asset: string }) => o.asset)).toEqual(["ETH", "USDC"]);
    expect(await count()).toBe((before ?? 0) + 1);
    await api.expectQueriesRefused(a.apiKey, "/v1/payment-requests", ["status=paidish", "customer_id=x", "limit=0"]);
  });

  it("cancels an open request once: its event, then 409", async () => {
    const open = (await c.create(a, USD_25)).body.data;
    const key = nextKey("cancel");
    const canceled = await c.call(a.apiKey, `/v1/payment-requests/${open.id}/cancel`, {
      method: "POST",
      idempotencyKey: key,
    });
    expect(canceled.status).toBe(200);
    expect(canceled.body.data).toMatchObject({ status: "canceled", canceled_at: expect.any(String) });
    const again = await c.call(a.apiKey, `/v1/payment-requests/${open.id}/cancel`, {
      method: "POST",
      idempotencyKey: nextKey("cancel"),
    });
    expect(again.status).toBe(409);
    const types = (await c.call(a.apiKey, `/v1/events?object_id=${open.id}`)).body.data.items.map(
      (e: { type: string }) => e.type,
    );
    expect(types).toEqual(["payment_request.canceled", "payment_request.created"]);
    const page = await c.checkout(open.hosted_url);
    expect(page).toMatchObject({ status: "canceled", options: [], cancel_url: null });
    const list = (await c.call(a.apiKey, "/v1/payment-requests?status=canceled")).body.data.items;
    expect(list.map((r: { id: string }) => r.id)).toContain(open.id);
  });

  it("serves the hosted page without a key: the page, its status (nothing private), the QR code; an unknown link is a 404 page", async () => {
    const created = (await c.create(a, USD_25)).body.data;
    const path = new URL(created.hosted_url).pathname;
    const page = await c.call(undefined, path);
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toMatch(/^text\/html/);
    expect(page.headers.get("content-security-policy")).toContain("default-src 'none'");
    expect(page.headers.get("referrer-policy")).toBe("no-referrer");
    expect(page.text).toContain("25.00 USD");
    expect(page.text).toContain(created.options[0].address);
    expect(page.text).not.toMatch(/https?:\/\/(?!shop\.example)[^"' ]+\.(js|css|png|svg)/);

    const status = await c.checkout(created.hosted_url);
    expect(status).toMatchObject({ status: "open", amount: "25.00", currency: "USD", success_url: null });
    expect(status.cancel_url).toBe(USD_25.cancel_url);
    expect(status.options.map((o: { payment_uri: string }) => o.payment_uri)).toEqual(
      created.options.map((o: { payment_uri: string }) => o.payment_uri),
    );
    const text = JSON.stringify(status);
    for (const hidden of [created.id, a.merchantId, "order-1234", '"order"']) expect(text).not.toContain(hidden);

    const qr = await c.call(undefined, `${path}/qr/BITCOIN/BTC`);
    expect(qr.status).toBe(200);
    expect(qr.headers.get("content-type")).toMatch(/^image\/svg\+xml/);
    expect(qr.text).toMatch(/^<svg [^>]*viewBox="0 0 \d+ \d+"/);
    expect((await c.call(undefined, `${path}/qr/BITCOIN/ETH`)).status).toBe(404);

    const unknown = await c.call(undefined, "/pay/ck_AAAAAAAAAAAAAAAAAAAAAA");
    expect(unknown.status).toBe(404);
    expect(unknown.text).toContain("Payment link not found");
    expect((await c.call(undefined, "/pay/anything/status")).status).toBe(404);
  });

  it("re-quotes a lapsed lock when the payer looks, while nothing was paid; an expired request refuses its rate", async () => {
    const created = (await c.create(a, USD_25)).body.data;
    await api.db.query("UPDATE payment_requests SET rate_locked_until = now() - interval '1 second' WHERE id = $1", [
      created.id,
    ]);
    rates.setBtc("50000.00");
    try {
      const fresh = await c.checkout(created.hosted_url);
      expect(fresh.quote_version).toBe(2);
      expect(Date.parse(fresh.rate_locked_until)).toBeGreaterThan(Date.now() + 890_000);
      // 25 / 50000 BTC = 50000 sat.
      expect(fresh.options[1]).toMatchObject({ asset: "BTC", amount_due: "0.0005" });
      expect((await c.get(a, created.id)).body.data.options[1]).toMatchObject({
        amount_due: "0.0005",
        rate: "50000.00",
      });
      // Looked at again within the lock: the same quote.
      expect((await c.checkout(created.hosted_url)).quote_version).toBe(2);

      await api.db.query(
        "UPDATE payment_requests SET rate_locked_until = now() - interval '2 seconds', expires_at = now() - interval '1 second' WHERE id = $1",
        [created.id],
      );
      rates.setBtc("40000.00");
      const expired = await c.checkout(created.hosted_url);
      expect(expired).toMatchObject({ status: "expired", options: [], quote_version: 2 });
      expect((await c.call(undefined, `${new URL(created.hosted_url).pathname}/qr/BITCOIN/BTC`)).status).toBe(404);
      expect((await c.get(a, created.id)).body.data).toMatchObject({ status: "expired" });
    } finally {
      rates.setBtc(undefined);
    }
  });
});
