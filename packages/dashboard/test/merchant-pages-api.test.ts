import type { ChainAsset, SandboxFaucet } from "@mp/core";
import { beforeAll, describe, expect, it } from "vitest";
import type { TestMerchant } from "../../../test/support/api-harness.ts";
import { insertDeposits } from "../../../test/support/bulk-deposits.ts";
import { createUsers } from "./support/dashboard-client.ts";
import { expectGetStatus } from "./support/expect-get-status.ts";
import { useServedDashboard } from "./support/use-dashboard-site.ts";

/** A faucet that only takes the order: the route's part ends at the queued send (the worker is not run here). */
const recordingFaucet: SandboxFaucet = {
  chain: "BASE",
  assets: (): ChainAsset[] => [{ asset: "USDC", address: null, decimals: 6 }],
  send: async () => {
    throw new Error("not sent in this test");
  },
};

/**
 * The merchant pages' routes (/dashboard/api/merchants/{id}/...): each is the /v1 route of the same
 * resource run with the session's merchant, so these check what the dashboard adds: the role of every
 * read and write, the CSRF token on writes, 404 across merchants, the audit log, keyset pages.
 */
describe("dashboard merchant pages (customers, wallets, deposits, transfers, webhooks, sandbox, invites)", () => {
  const { api, dashboard } = useServedDashboard({
    overrides: {
      faucets: { BASE: recordingFaucet },
      // A public address for the receiver's name: the URL rules pass without DNS.
      resolveWebhookHost: async () => [{ address: "93.184.216.34", family: 4 }],
    },
  });
  let a: TestMerchant;
  let b: TestMerchant;
  let customerOfA: string;
  let customerOfB: string;
  let walletOfA: string;
  let walletOfB: string;
  let addressOfA: string;
  const post = (m: TestMerchant, path: string, json: unknown, key: string) =>
    api.call(m.apiKey, path, { method: "POST", idempotencyKey: key, json });

  beforeAll(async () => {
    a = await api.merchant("sandbox");
    b = await api.merchant("production");
    const users = [
      ["admin@example.com", "admin", undefined],
      ["owner-a@example.com", "owner", a.merchantId],
      ["dev-a@example.com", "developer", a.merchantId],
      ["finance-a@example.com", "finance", a.merchantId],
      ["viewer-a@example.com", "viewer", a.merchantId],
      ["owner-b@example.com", "owner", b.merchantId],
    ] as const;
    await createUsers(api.db, users);
    const person = { type: "INDIVIDUAL", first_name: "Ada", last_name: "Lovelace" };
    customerOfA = (await post(a, "/v1/customers", person, "ca")).body.data.id;
    customerOfB = (await post(b, "/v1/customers", person, "cb")).body.data.id;
    const walletA = (await post(a, "/v1/wallets", { customer_id: customerOfA, label: "main" }, "wa")).body.data;
    walletOfA = walletA.id;
    addressOfA = walletA.destinations.find((d: { chain: string }) => d.chain === "BASE").address;
    walletOfB = (await post(b, "/v1/wallets", { customer_id: customerOfB, label: "main" }, "wb")).body.data.id;
  });

  it("lists customers, their verification history, wallets with ten addresses and transfers to every role of the merchant", async () => {
    for (const email of ["viewer-a@example.com", "finance-a@example.com", "admin@example.com"]) {
      const c = await dashboard.signedIn(email);
      const customers = await c.call("GET", `/merchants/${a.merchantId}/customers`);
      expect(customers.status, email).toBe(200);
      expect(customers.body.items.map((x: { id: string }) => x.id)).toEqual([customerOfA]);
      const customer = await c.call("GET", `/merchants/${a.merchantId}/customers/${customerOfA}`);
      expect(customer.body).toMatchObject({ id: customerOfA, first_name: "Ada" });
      const history = await c.call(
        "GET",
        `/merchants/${a.merchantId}/customers/${customerOfA}/verification-submissions`,
      );
      expect(history.status).toBe(200);
      expect(history.body.items).toEqual([]);
      const events = await c.call("GET", `/merchants/${a.merchantId}/events?object_id=${customerOfA}`);
      expect(events.body.items.map((e: { type: string }) => e.type)).toContain("customer.created");
      const wallet = await c.call("GET", `/merchants/${a.merchantId}/wallets/${walletOfA}`);
      expect(wallet.body.destinations).toHaveLength(10);
      const transfers = await c.call("GET", `/merchants/${a.merchantId}/transfers`);
      expect(transfers.body).toMatchObject({ items: [], total: 0 });
    }
  });

  it("answers 404 for another merchant's customer, wallet, deposit and endpoint, under either merchant's path", async () => {
    await insertDeposits(api.db, walletOfB, { count: 1 });
    const depositOfB = (await api.db.query<{ id: string }>("SELECT id FROM deposits WHERE wallet_id = $1", [walletOfB]))
      .rows[0]?.id;
    const c = await dashboard.signedIn("owner-a@example.com");
    await expectGetStatus(c, 404, [
      `/merchants/${a.merchantId}/customers/${customerOfB}`,
      `/merchants/${a.merchantId}/customers/${customerOfB}/verification-submissions`,
      `/merchants/${a.merchantId}/wallets/${walletOfB}`,
      `/merchants/${a.merchantId}/deposits/${depositOfB}`,
      `/merchants/${b.merchantId}/customers/${customerOfB}`,
      `/merchants/${b.merchantId}/customers`,
      `/merchants/${b.merchantId}/deposits`,
      `/merchants/${b.merchantId}/deposit-volume`,
      `/merchants/${b.merchantId}/webhook-endpoints`,
      `/merchants/${b.merchantId}/users`,
    ]);
    expect(
      (await c.call("POST", `/merchants/${b.merchantId}/invites`, { json: { email: "x@b.example", role: "viewer" } }))
        .status,
    ).toBe(404);
    const admin = await dashboard.signedIn("admin@example.com");
    expect((await admin.call("GET", `/merchants/${b.merchantId}/deposits/${depositOfB}`)).status).toBe(200);
  });

  it("pages 60 deposits by keyset with status and chain filters, and sums the volume by day exactly", async () => {
    await insertDeposits(api.db, walletOfA, { count: 50, amountMicros: 1_234_567n });
    await insertDeposits(api.db, walletOfA, { count: 10, chain: "SOLANA", status: "PENDING", amountMicros: 1n });
    const c = await dashboard.signedIn("viewer-a@example.com");
    const seen: string[] = [];
    let after: string | null = null;
    do {
      const page = await c.call("GET", `/merchants/${a.merchantId}/deposits?limit=25${after ? `&after=${after}` : ""}`);
      expect(page.status).toBe(200);
      seen.push(...page.body.items.map((d: { id: string }) => d.id));
      after = page.body.next;
    } while (after);
    expect(seen).toHaveLength(60);
    expect(new Set(seen).size).toBe(60);
    const all = await api.call(a.apiKey, "/v1/deposits?limit=100");
    expect(seen).toEqual(all.body.data.items.map((d: { id: string }) => d.id));

    const pending = await c.call("GET", `/merchants/${a.merchantId}/deposits?status=PENDING&chain=SOLANA&limit=100`);
    expect(pending.body.items).toHaveLength(10);
    expect(pending.body.items[0]).toMatchObject({ status: "PENDING", required_confirmations: 3, chain: "SOLANA" });
    expect(pending.body.next).toBeNull();
    // The customer page's list: its customer's deposits only; another merchant's customer finds none.
    const ofCustomer = await c.call("GET", `/merchants/${a.merchantId}/deposits?customer_id=${customerOfA}&limit=100`);
    expect(ofCustomer.body.items).toHaveLength(60);
    const ofOther = await c.call("GET", `/merchants/${a.merchantId}/deposits?customer_id=${customerOfB}`);
    expect(ofOther.body.items).toEqual([]);
    expect((await c.call("GET", `/merchants/${a.merchantId}/deposits?customer_id=nope`)).status).toBe(400);
    expect((await c.call("GET", `/merchants/${a.merchantId}/deposits?status=LOST`)).status).toBe(400);
    expect((await c.call("GET", `/merchants/${a.merchantId}/deposits?limit=1000`)).status).toBe(400);

    const volume = await c.call("GET", `/merchants/${a.merchantId}/deposit-volume`);
    const total = volume.body.items.reduce(
      (n: bigint, d: { amount_usd: string }) => n + BigInt(d.amount_usd.replace(".", "")),
      0n,
    );
    // 50 x 1.234567 + 10 x 0.000001, at most two days (the inserts reach a minute back from now).
    expect(total).toBe(50n * 1_234_567n + 10n);
    expect(volume.body.items.reduce((n: number, d: { count: number }) => n + d.count, 0)).toBe(60);
  });

  it("lets owner and developer create, test and redeliver webhooks; a viewer or finance user gets 403; no CSRF token is a 403", async () => {
    const body = { url: "https://hooks.example.com/payments", enabled_events: ["*"] };
    const path = `/merchants/${a.merchantId}/webhook-endpoints`;
    for (const email of ["viewer-a@example.com", "finance-a@example.com"]) {
      const c = await dashboard.signedIn(email);
      expect((await c.call("GET", path)).status).toBe(200);
      expect((await c.call("POST", path, { json: body })).status, email).toBe(403);
    }
    const dev = await dashboard.signedIn("dev-a@example.com");
    expect((await dev.call("POST", path, { json: body, csrf: null })).status).toBe(403);
    const created = await dev.call("POST", path, { json: body });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.secret).toMatch(/^whsec_/);
    expect(created.headers.get("cache-control")).toBe("no-store");
    const invalid = await dev.call("POST", path, { json: { url: "ftp://x", enabled_events: ["*"] } });
    expect(invalid.status).toBe(400);
    const endpoint = created.body.id;
    const tested = await dev.call("POST", `${path}/${endpoint}/test`);
    expect(tested.status).toBe(202);
    expect(tested.body).toMatchObject({
      endpoint_id: endpoint,
      event_type: "webhook_endpoint.test",
      status: "pending",
    });
    const event = (await dev.call("GET", `/merchants/${a.merchantId}/events?object_id=${customerOfA}`)).body.items[0];
    const redelivered = await dev.call("POST", `/merchants/${a.merchantId}/events/${event.id}/redeliver`, {
      json: { endpoint_id: endpoint },
    });
    expect(redelivered.status).toBe(202);
    expect(redelivered.body.deliveries).toHaveLength(1);
    const viewer = await dashboard.signedIn("viewer-a@example.com");
    expect(
      (await viewer.call("POST", `/merchants/${a.merchantId}/events/${event.id}/redeliver`, { json: {} })).status,
    ).toBe(403);
    expect((await viewer.call("GET", `${path}/${endpoint}/deliveries`)).status).toBe(200);
    const ownerB = await dashboard.signedIn("owner-b@example.com");
    expect(
      (await ownerB.call("POST", `/merchants/${b.merchantId}/events/${event.id}/redeliver`, { json: {} })).status,
    ).toBe(404);
    expect((await ownerB.call("DELETE", `/merchants/${a.merchantId}/webhook-endpoints/${endpoint}`)).status).toBe(404);
    const owner = await dashboard.signedIn("owner-a@example.com");
    const disabled = await owner.call("PATCH", `${path}/${endpoint}`, { json: { status: "disabled" } });
    expect(disabled.body).toMatchObject({ status: "disabled", disabled_reason: "manual" });
    const audit = await api.db.query(
      "SELECT actor, action FROM operator_audit_log WHERE object_id = $1 ORDER BY created_at, action",
      [endpoint],
    );
    expect(audit.rows).toEqual(
      expect.arrayContaining([
        { actor: "dashboard:dev-a@example.com", action: "webhook_endpoint.created" },
        { actor: "dashboard:dev-a@example.com", action: "webhook_endpoint.tested" },
        { actor: "dashboard:owner-a@example.com", action: "webhook_endpoint.updated" },
      ]),
    );
  });

  it("queues a sandbox deposit for a sandbox merchant's developer only; production merchants and viewers are refused", async () => {
    const dev = await dashboard.signedIn("dev-a@example.com");
    expect((await dev.call("GET", `/merchants/${a.merchantId}/sandbox`)).body).toEqual({
      enabled: true,
      chains: [{ chain: "BASE", assets: ["USDC"] }],
    });
    const path = `/merchants/${a.merchantId}/sandbox/deposits`;
    const send = { address: addressOfA, asset: "USDC", amount: "12.50", chain: "BASE" };
    const viewer = await dashboard.signedIn("viewer-a@example.com");
    expect((await viewer.call("POST", path, { json: send })).status).toBe(403);
    expect((await dev.call("POST", path, { json: send, csrf: null })).status).toBe(403);
    const queued = await dev.call("POST", path, { json: send });
    expect(queued.status, JSON.stringify(queued.body)).toBe(202);
    expect(queued.body).toMatchObject({ status: "QUEUED", amount: "12.50", amount_raw: "12500000", chain: "BASE" });
    const row = await api.db.query("SELECT merchant_id, status FROM sandbox_faucet_sends WHERE id = $1", [
      queued.body.id,
    ]);
    expect(row.rows).toEqual([{ merchant_id: a.merchantId, status: "QUEUED" }]);

    const ownerB = await dashboard.signedIn("owner-b@example.com");
    expect((await ownerB.call("GET", `/merchants/${b.merchantId}/sandbox`)).body).toEqual({
      enabled: false,
      chains: [],
    });
    const refused = await ownerB.call("POST", `/merchants/${b.merchantId}/sandbox/bank-deposits`, {
      json: { virtual_account_id: walletOfB, amount: "10.00" },
    });
    expect(refused.status).toBe(403);
  });

  it("lets an owner invite a user with a one-time link that sets their password; others cannot invite", async () => {
    const path = `/merchants/${a.merchantId}/invites`;
    const dev = await dashboard.signedIn("dev-a@example.com");
    expect((await dev.call("POST", path, { json: { email: "new@a.example", role: "viewer" } })).status).toBe(403);
    const owner = await dashboard.signedIn("owner-a@example.com");
    expect(
      (await owner.call("POST", path, { json: { email: "new@a.example", role: "viewer" }, csrf: null })).status,
    ).toBe(403);
    expect((await owner.call("POST", path, { json: { email: "new@a.example", role: "admin" } })).status).toBe(400);
    const invited = await owner.call("POST", path, { json: { email: "New@A.example", role: "developer" } });
    expect(invited.status).toBe(202);
    expect(invited.body.user).toMatchObject({ email: "new@a.example", role: "developer" });
    const link = new URL(invited.body.password_link);
    expect(link.pathname).toBe("/dashboard/set-password");
    const token = new URLSearchParams(link.hash.slice(1)).get("token");
    const newcomer = dashboard.client();
    expect(
      (await newcomer.call("POST", "/password", { json: { token, password: "a fresh long password" } })).status,
    ).toBe(204);
    expect((await newcomer.signIn("new@a.example", "a fresh long password")).status).toBe(201);
    const session = await newcomer.call("GET", "/session");
    expect(session.body.user).toMatchObject({ role: "developer", merchant_id: a.merchantId });
    expect((await owner.call("POST", path, { json: { email: "new@a.example", role: "viewer" } })).status).toBe(409);
    const team = await owner.call("GET", `/merchants/${a.merchantId}/users`);
    expect(team.body.items.find((u: { email: string }) => u.email === "new@a.example")).toMatchObject({
      role: "developer",
      has_password: true,
    });
    const audit = await api.db.query(
      "SELECT actor FROM operator_audit_log WHERE object_id = $1 AND action = 'dashboard_user.created'",
      [invited.body.user.id],
    );
    expect(audit.rows).toEqual([{ actor: "dashboard:owner-a@example.com" }]);
  });
});
