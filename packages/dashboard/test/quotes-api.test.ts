import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { payoutsOnNoNode } from "../../../test/api/chains-on-no-node.ts";
import { PAYEE } from "../../../test/api/transfers-support.ts";
import { tier2Customer } from "../../../test/api/verification-fixtures.ts";
import { type ApiHarness, eventually, type TestMerchant } from "../../../test/support/api-harness.ts";
import { merchantsWithRoleUsers, serveDashboard, signedIn } from "./support/dashboard-client.ts";

/**
 * The quotes page and the transfers page's "New payout": the merchant's quotes with state, fee and
 * spread (another merchant's 404); a quote and its transfer made through the session by owner,
 * developer and finance (a viewer 403), the transfer at most once per X-Idempotency-Key.
 */
describe("dashboard quotes and payout routes", () => {
  let api: ApiHarness;
  let close: () => Promise<void>;
  let url: string;
  let a: TestMerchant;
  let b: TestMerchant;
  let customerOfA: string;
  const client = (email: string) => signedIn(url, email);
  const quoteBody = (customerId: string, amount = "100.00") => ({
    customer_id: customerId,
    source: { method: "BANK_TRANSFER" },
    destination: { type: "CRYPTO_ADDRESS", asset: "USDC", network: "BASE", address: PAYEE },
    source_amount: amount,
  });

  beforeAll(async () => {
    ({ api, url, close } = await serveDashboard(payoutsOnNoNode()));
    ({ a, b } = await merchantsWithRoleUsers(api, { a: ["owner", "developer", "finance", "viewer"], b: ["owner"] }));
    customerOfA = await tier2Customer(api, a);
  }, 120_000);
  afterAll(() => close?.());

  it("quotes for owner, developer and finance, never for a viewer, and audits each", async () => {
    for (const email of ["owner@a.example", "developer@a.example", "finance@a.example"]) {
      const quoted = await (await client(email)).call("POST", `/merchants/${a.merchantId}/quotes`, {
        json: quoteBody(customerOfA),
      });
      expect(quoted.status, quoted.text).toBe(201);
      expect(quoted.body.fee.currency).toBe("USD");
      const audit = await api.db.query(
        "SELECT actor FROM operator_audit_log WHERE action = 'quote.created' AND object_id = $1",
        [quoted.body.id],
      );
      expect(audit.rows).toEqual([{ actor: `dashboard:${email}` }]);
    }
    const viewer = await client("viewer@a.example");
    const refused = await viewer.call("POST", `/merchants/${a.merchantId}/quotes`, { json: quoteBody(customerOfA) });
    expect(refused.status).toBe(403);
    // A quote's own rules answer as /v1 does: another merchant's customer is not found.
    const owner = await client("owner@a.example");
    const wrong = await owner.call("POST", `/merchants/${a.merchantId}/quotes`, {
      json: quoteBody("00000000-0000-4000-8000-000000000000"),
    });
    expect(wrong.status).toBe(404);
    expect(wrong.body.message).toContain("Customer");
  });

  it("lists the merchant's quotes with state, fee and spread; another merchant's are 404", async () => {
    const owner = await client("owner@a.example");
    const quoted = await owner.call("POST", `/merchants/${a.merchantId}/quotes`, {
      json: quoteBody(customerOfA, "40.00"),
    });
    expect(quoted.status, quoted.text).toBe(201);
    const viewer = await client("viewer@a.example");
    const list = await viewer.call("GET", `/merchants/${a.merchantId}/quotes?limit=2`);
    expect(list.status).toBe(200);
    expect(list.body.total).toBeGreaterThanOrEqual(4);
    expect(list.body.items[0]).toMatchObject({ id: quoted.body.id, state: "open", used: false });
    expect(list.body.items[0].spread.currency).toBe("USDC");
    // The spread is what the rate kept besides the fee: positive with the harness's spread.
    expect(Number(list.body.items[0].spread.value)).toBeGreaterThan(0);
    const one = await viewer.call("GET", `/merchants/${a.merchantId}/quotes/${quoted.body.id}`);
    expect(one.status).toBe(200);
    expect(one.body).toMatchObject({ id: quoted.body.id, state: "open", fee: quoted.body.fee });

    const other = await client("owner@b.example");
    expect((await other.call("GET", `/merchants/${a.merchantId}/quotes`)).status).toBe(404);
    expect((await other.call("GET", `/merchants/${a.merchantId}/quotes/${quoted.body.id}`)).status).toBe(404);
    const asB = await other.call("GET", `/merchants/${b.merchantId}/quotes/${quoted.body.id}`);
    expect(asB.status).toBe(404);
    expect(asB.body.message).toContain("Quote");
    expect((await other.call("GET", `/merchants/${b.merchantId}/quotes`)).body.total).toBe(0);
    expect((await viewer.call("GET", `/merchants/${a.merchantId}/quotes?state=soon`)).status).toBe(400);
  });

  it("says expired once the quote's time is past, by the database's clock", async () => {
    const owner = await client("owner@a.example");
    // A quote valid for one second (quotes are immutable: its time cannot be moved afterwards).
    const saved = api.deps.transfers;
    api.deps.transfers = { ...saved, quoteTtlSeconds: 1 };
    const quoted = await owner
      .call("POST", `/merchants/${a.merchantId}/quotes`, { json: quoteBody(customerOfA) })
      .finally(() => {
        api.deps.transfers = saved;
      });
    expect(quoted.status, quoted.text).toBe(201);
    const expired = await eventually(async () => {
      const res = await owner.call("GET", `/merchants/${a.merchantId}/quotes?state=expired`);
      return res.body.total > 0 ? res : undefined;
    }, 15_000);
    expect(expired.body.items.map((q: { id: string }) => q.id)).toEqual([quoted.body.id]);
    expect(expired.body.items[0].state).toBe("expired");
    const open = await owner.call("GET", `/merchants/${a.merchantId}/quotes?state=open`);
    expect(open.body.items.map((q: { id: string }) => q.id)).not.toContain(quoted.body.id);
  });

  it("starts the transfer once per idempotency key, refuses a viewer, and the quote is used", async () => {
    const finance = await client("finance@a.example");
    const quoted = await finance.call("POST", `/merchants/${a.merchantId}/quotes`, { json: quoteBody(customerOfA) });
    const pay = (who: typeof finance, key: string, quoteId = quoted.body.id) =>
      who.call("POST", `/merchants/${a.merchantId}/transfers`, {
        json: { quote_id: quoteId },
        headers: { "x-idempotency-key": key },
      });
    const viewer = await client("viewer@a.example");
    expect((await pay(viewer, "payout-viewer")).status).toBe(403);

    const first = await pay(finance, "payout-1");
    expect(first.status, first.text).toBe(201);
    expect(first.body.quote_id).toBe(quoted.body.id);
    const again = await pay(finance, "payout-1");
    expect(again.status).toBe(201);
    expect(again.body.id).toBe(first.body.id);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    const transfers = await api.db.query("SELECT id FROM transfers WHERE quote_id = $1", [quoted.body.id]);
    expect(transfers.rows).toEqual([{ id: first.body.id }]);
    const audits = await api.db.query("SELECT count(*)::int AS n FROM operator_audit_log WHERE object_id = $1", [
      first.body.id,
    ]);
    expect(audits.rows[0]).toEqual({ n: 1 });
    // The same key for another quote is the API's 409; a new key for a used quote is its 409 too.
    const other = await finance.call("POST", `/merchants/${a.merchantId}/quotes`, { json: quoteBody(customerOfA) });
    expect((await pay(finance, "payout-1", other.body.id)).status).toBe(409);
    expect((await pay(finance, "payout-2")).status).toBe(409);
    const used = await finance.call("GET", `/merchants/${a.merchantId}/quotes/${quoted.body.id}`);
    expect(used.body).toMatchObject({ state: "used", used: true });
    expect((await pay(finance, "bad key with spaces")).status).toBe(400);
  });
});
