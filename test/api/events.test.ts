import { pruneEvents } from "@mp/events";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ApiHarness, eventually, startApiHarness, type TestMerchant } from "../support/api-harness.ts";
import { createCustomer, decided, individualTier1, nextKey, submit, tier2Customer } from "./verification-fixtures.ts";

interface ApiEvent {
  id: string;
  type: string;
  object_type: string;
  object_id: string;
  object_version: number;
  environment: string;
  idempotency_key: string | null;
  created_at: string;
  data: Record<string, unknown>;
}

describe("events", () => {
  let api: ApiHarness;
  let a: TestMerchant;
  let b: TestMerchant;

  beforeAll(async () => {
    api = await startApiHarness({ workers: true });
    a = await api.merchant();
    b = await api.merchant();
  });
  afterAll(() => api.stop());

  const post = (m: TestMerchant, path: string, json: unknown, idempotencyKey = nextKey("ev")) =>
    api.call(m.apiKey, path, { method: "POST", idempotencyKey, json });

  /** Every event of the object, oldest first, read through the API (all pages). */
  async function eventsOf(m: TestMerchant, objectId: string): Promise<ApiEvent[]> {
    const res = await api.call(m.apiKey, `/v1/events?object_id=${objectId}&limit=200`);
    expect(res.status).toBe(200);
    return (res.body.data.items as ApiEvent[]).reverse();
  }

  const typesOf = (events: ApiEvent[]) => events.map((e) => [e.type, e.object_version]);

  it("customer and verification changes: created and each status change, the object as GET shows it", async () => {
    const key = nextKey("cust");
    const created = await post(a, "/v1/customers", { type: "INDIVIDUAL", first_name: "Ada", last_name: "Byron" }, key);
    expect(created.status).toBe(202);
    const customerId = created.body.data.id;
    const provisioned = await eventually(async () => {
      const events = await eventsOf(a, customerId);
      return events.length >= 2 ? events : undefined;
    });
    expect(provisioned[0]).toMatchObject({
      type: "customer.created",
      object_type: "customer",
      object_id: customerId,
      object_version: 1,
      environment: "sandbox",
      idempotency_key: key,
    });
    // Exactly what the request answered.
    expect(provisioned[0]?.data).toEqual(created.body.data);
    // The provisioning job's change: no request caused it, so no key.
    expect(provisioned[1]).toMatchObject({
      type: "customer.status_changed",
      object_version: 2,
      idempotency_key: null,
      data: { status: "NOT_STARTED" },
    });

    const submitKey = nextKey("sub");
    const submitted = await submit(api, a, customerId, individualTier1(), submitKey);
    expect(submitted.status).toBe(202);
    const submissionId = submitted.body.data.id;
    await decided(api, a, customerId, submissionId);
    const submissionEvents = await eventually(async () => {
      const events = await eventsOf(a, submissionId);
      return events.length >= 3 ? events : undefined;
    });
    expect(typesOf(submissionEvents)).toEqual([
      ["verification_submission.created", 1],
      ["verification_submission.status_changed", 2],
      ["verification_submission.status_changed", 3],
    ]);
    expect(submissionEvents[0]).toMatchObject({ idempotency_key: submitKey, data: submitted.body.data });
    expect(submissionEvents.map((e) => e.data.status)).toEqual(["SUBMITTED", "PENDING", "APPROVED"]);
    const submissionNow = await api.call(
      a.apiKey,
      `/v1/customers/${customerId}/verification-submissions/${submissionId}`,
    );
    expect(submissionEvents[2]?.data).toEqual(submissionNow.body.data);
    // No payload value is ever in an event.
    expect(JSON.stringify(submissionEvents)).not.toContain("Lovelace");

    const customerEvents = await eventsOf(a, customerId);
    expect(customerEvents.map((e) => [e.object_version, e.data.status, e.idempotency_key])).toEqual([
      [1, "PROVISIONING", key],
      [2, "NOT_STARTED", null],
      [3, "UNDER_REVIEW", submitKey],
      [4, "APPROVED", null],
    ]);
    expect(customerEvents[3]?.data).toEqual((await api.call(a.apiKey, `/v1/customers/${customerId}`)).body.data);
    const rejected = await createCustomer(api, a);
    const refused = await submit(api, a, rejected, individualTier1({ last_name: "Reject" }));
    await decided(api, a, rejected, refused.body.data.id);
    const last = (await eventsOf(a, rejected)).at(-1);
    expect(last).toMatchObject({
      type: "customer.status_changed",
      data: { status: "REJECTED", capabilities: { crypto_deposits: false } },
    });
  });

  it("wallets, virtual accounts and bank deposits: created and status changes, bank details masked", async () => {
    const customerId = await tier2Customer(api, a, { lastName: "Hopper" });
    const walletKey = nextKey("wallet");
    const wallet = await post(a, "/v1/wallets", { customer_id: customerId, label: "events" }, walletKey);
    expect(wallet.status).toBe(201);
    const [walletCreated, ...moreWallet] = await eventsOf(a, wallet.body.data.id);
    expect(moreWallet).toEqual([]);
    expect(walletCreated).toMatchObject({ type: "wallet.created", object_version: 1, idempotency_key: walletKey });
    expect(walletCreated?.data).toEqual(wallet.body.data);

    const vaKey = nextKey("va");
    const opened = await post(a, "/v1/virtual-accounts", { customer_id: customerId, currency: "USD" }, vaKey);
    expect(opened.status).toBe(201);
    const accountId = opened.body.data.id;
    const accountEvents = await eventually(async () => {
      const events = await eventsOf(a, accountId);
      return events.length >= 2 ? events : undefined;
    }, 20_000);
    expect(typesOf(accountEvents)).toEqual([
      ["virtual_account.created", 1],
      ["virtual_account.status_changed", 2],
    ]);
    expect(accountEvents[0]).toMatchObject({ idempotency_key: vaKey, data: opened.body.data });
    expect(accountEvents[1]).toMatchObject({ idempotency_key: null, data: { status: "ACTIVE" } });
    // GET shows the full instructions of an ACTIVE account; the event keeps them masked.
    const full = (await api.call(a.apiKey, `/v1/virtual-accounts/${accountId}`)).body.data;
    expect(full.deposit_instructions.bank_account_number).toMatch(/\d{6,}/);
    expect(JSON.stringify(accountEvents)).not.toContain(full.deposit_instructions.bank_account_number);
    expect(accountEvents[1]?.data.deposit_instructions).toMatchObject({
      account_number: expect.stringMatching(/^\*{4}/),
    });

    const depositKey = nextKey("bank");
    const deposit = await post(
      a,
      "/v1/sandbox/bank-deposits",
      { virtual_account_id: accountId, amount: "12.50" },
      depositKey,
    );
    expect(deposit.status).toBe(201);
    const [bankCreated, ...moreBank] = await eventsOf(a, deposit.body.data.id);
    expect(moreBank).toEqual([]);
    expect(bankCreated).toMatchObject({
      type: "bank_deposit.created",
      object_type: "bank_deposit",
      object_version: 1,
      idempotency_key: depositKey,
      data: deposit.body.data,
    });
  });

  it("never appends for a change that did not commit: replay, conflicting reuse of a key, a failure after the change", async () => {
    const customerId = await createCustomer(api, a);
    const count = async (type: string) =>
      (await api.call(a.apiKey, `/v1/events?type=${type}&limit=1`)).body.data.total as number;
    const wallets = await count("wallet.created");

    // Wallets start their writes before the key is claimed: a replay runs the insert and its event,
    // then rolls both back to the savepoint.
    const json = { customer_id: customerId, label: "once" };
    expect((await post(a, "/v1/wallets", json, "wallet-once")).status).toBe(201);
    const replay = await post(a, "/v1/wallets", json, "wallet-once");
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    const conflict = await post(a, "/v1/wallets", { ...json, label: "other" }, "wallet-once");
    expect(conflict.status).toBe(409);
    expect(await count("wallet.created")).toBe(wallets + 1);

    // A rejected customer's wallet (422) is an answer whose writes are rolled back.
    const rejected = await createCustomer(api, a);
    const refused = await submit(api, a, rejected, individualTier1({ last_name: "Reject" }));
    await decided(api, a, rejected, refused.body.data.id);
    expect((await post(a, "/v1/wallets", { customer_id: rejected, label: "no" })).status).toBe(422);
    expect(await count("wallet.created")).toBe(wallets + 1);

    // A failure after the change and its event, in the same transaction: recording the answer fails.
    await api.db.query(
      `CREATE FUNCTION fail_doomed_answer() RETURNS trigger LANGUAGE plpgsql AS $$
       BEGIN RAISE EXCEPTION 'recording the answer failed'; END $$`,
    );
    await api.db.query(
      `CREATE TRIGGER fail_doomed_answer BEFORE UPDATE ON idempotency_keys FOR EACH ROW
       WHEN (NEW.key = 'doomed') EXECUTE FUNCTION fail_doomed_answer()`,
    );
    try {
      const customers = await count("customer.created");
      const doomed = await post(a, "/v1/customers", { type: "BUSINESS", business_name: "Doomed Ltd" }, "doomed");
      expect(doomed.status).toBe(500);
      expect(await count("customer.created")).toBe(customers);
      const { rows } = await api.db.query("SELECT 1 FROM customers WHERE business_name = 'Doomed Ltd'");
      expect(rows).toEqual([]);
    } finally {
      await api.db.query("DROP TRIGGER fail_doomed_answer ON idempotency_keys");
      await api.db.query("DROP FUNCTION fail_doomed_answer()");
    }
  });

  it("another merchant's events are 404 and never listed", async () => {
    const customerId = await createCustomer(api, a);
    const [event] = await eventsOf(a, customerId);
    if (!event) throw new Error("no event");
    expect((await api.call(a.apiKey, `/v1/events/${event.id}`)).body.data).toEqual(event);
    const other = await api.call(b.apiKey, `/v1/events/${event.id}`);
    expect(other.status).toBe(404);
    expect(other.body).toMatchObject({ error: "not_found", status: "error" });
    expect((await api.call(b.apiKey, `/v1/events/00000000-0000-4000-8000-000000000000`)).status).toBe(404);
    expect((await api.call(b.apiKey, `/v1/events?object_id=${customerId}`)).body.data.total).toBe(0);
    const own = await createCustomer(api, b);
    const listed = (await api.call(b.apiKey, "/v1/events?limit=200")).body.data;
    expect(listed.items.length).toBeGreaterThan(0);
    expect(listed.items.every((e: ApiEvent) => e.object_id === own)).toBe(true);
    expect((await api.call(undefined, "/v1/events")).status).toBe(401);
  });

  it("filters by type, object and creation time; pages are bounded, newest first, never overlapping", async () => {
    const m = await api.merchant();
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await post(m, "/v1/customers", { type: "BUSINESS", business_name: `Co ${i}` });
      ids.push(res.body.data.id);
    }
    // Provisioning adds a status change per customer.
    await eventually(async () => {
      const res = await api.call(m.apiKey, "/v1/events?type=customer.status_changed");
      return res.body.data.total === 5 ? true : undefined;
    });
    const all = (await api.call(m.apiKey, "/v1/events?limit=200")).body.data;
    expect(all.total).toBe(10);
    const times = all.items.map((e: ApiEvent) => e.created_at);
    expect([...times].sort().reverse()).toEqual(times);

    const created = (await api.call(m.apiKey, "/v1/events?type=customer.created")).body.data;
    expect(created.total).toBe(5);
    expect(created.items.map((e: ApiEvent) => e.object_id).sort()).toEqual([...ids].sort());
    const one = (await api.call(m.apiKey, `/v1/events?object_id=${ids[2]}`)).body.data;
    expect(one.items.map((e: ApiEvent) => [e.type, e.object_version])).toEqual([
      ["customer.status_changed", 2],
      ["customer.created", 1],
    ]);

    const pages: string[] = [];
    for (let page = 1; page <= 4; page++) {
      const res = (await api.call(m.apiKey, `/v1/events?limit=3&page=${page}`)).body.data;
      expect(res).toMatchObject({ limit: 3, page, total: 10, total_pages: 4 });
      pages.push(...res.items.map((e: ApiEvent) => e.id));
    }
    expect(new Set(pages).size).toBe(10);
    expect((await api.call(m.apiKey, "/v1/events?limit=3&page=5")).body.data.items).toEqual([]);

    const oldest = all.items.at(-1) as ApiEvent;
    const newest = all.items[0] as ApiEvent;
    const from = (await api.call(m.apiKey, `/v1/events?created_from=${encodeURIComponent(newest.created_at)}`)).body
      .data;
    expect(from.items.every((e: ApiEvent) => e.created_at >= newest.created_at)).toBe(true);
    expect(from.items.map((e: ApiEvent) => e.id)).toContain(newest.id);
    const to = (await api.call(m.apiKey, `/v1/events?created_to=${encodeURIComponent(oldest.created_at)}`)).body.data;
    expect(to.items.map((e: ApiEvent) => e.id)).toContain(oldest.id);
    expect(to.items.every((e: ApiEvent) => e.created_at <= oldest.created_at)).toBe(true);
    const future = new Date(Date.now() + 3_600_000).toISOString();
    expect((await api.call(m.apiKey, `/v1/events?created_from=${future}`)).body.data.total).toBe(0);

    await api.expectQueriesRefused(m.apiKey, "/v1/events", [
      "limit=0",
      "limit=201",
      "page=0",
      "type=customer.deleted",
      "created_from=yesterday",
      "created_to=2026-13-01T00:00:00Z",
      "object_id=",
    ]);
    expect((await api.call(m.apiKey, "/v1/events/not-a-uuid")).status).toBe(400);
  });

  it("keeps events for the retention period and prunes only older ones (at least 30 days)", async () => {
    const customerId = await createCustomer(api, a);
    const [event] = await eventsOf(a, customerId);
    if (!event) throw new Error("no event");
    await expect(pruneEvents(api.db, 29)).rejects.toThrow(RangeError);
    await api.db.query("UPDATE events SET created_at = now() - interval '29 days 23 hours' WHERE id = $1", [event.id]);
    const kept = await pruneEvents(api.db, 30);
    expect((await api.call(a.apiKey, `/v1/events/${event.id}`)).status).toBe(200);
    await api.db.query("UPDATE events SET created_at = now() - interval '30 days 1 minute' WHERE id = $1", [event.id]);
    expect(await pruneEvents(api.db, 30)).toBe(kept + 1);
    expect((await api.call(a.apiKey, `/v1/events/${event.id}`)).status).toBe(404);
    // Longer retention keeps it longer.
    const [other] = await eventsOf(a, await createCustomer(api, a));
    await api.db.query("UPDATE events SET created_at = now() - interval '45 days' WHERE id = $1", [other?.id]);
    await pruneEvents(api.db, 60);
    expect((await api.call(a.apiKey, `/v1/events/${other?.id}`)).status).toBe(200);
  });
});
