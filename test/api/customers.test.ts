import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ApiHarness, eventually, startApiHarness, type TestMerchant } from "../support/api-harness.ts";

describe("customers", () => {
  let api: ApiHarness;
  let a: TestMerchant;
  let b: TestMerchant;
  let n = 0;
  beforeAll(async () => {
    api = await startApiHarness({ workers: true });
    a = await api.merchant();
    b = await api.merchant();
  });
  afterAll(() => api.stop());

  const create = async (m: TestMerchant, json: Record<string, unknown>) => {
    n += 1;
    return api.call(m.apiKey, "/v1/customers", { method: "POST", idempotencyKey: `c-${n}`, json });
  };

  it("validates required fields by type", async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{}, "type"],
      [{ type: "INDIVIDUAL", last_name: "X" }, "first_name"],
      [{ type: "INDIVIDUAL", first_name: "X" }, "last_name"],
      [{ type: "INDIVIDUAL", first_name: " ", last_name: "X" }, "first_name"],
      [{ type: "BUSINESS", first_name: "X" }, "business_name"],
      [{ type: "BUSINESS", business_name: "Acme", email: "a@" }, "email"],
    ];
    for (const [json, field] of cases) {
      const res = await create(a, json);
      expect(res.status, JSON.stringify(json)).toBe(400);
      expect(res.body.message).toContain(field);
    }
  });

  it("answers 202 PROVISIONING, then the worker provisions the profile (NOT_STARTED)", async () => {
    const res = await create(a, { type: "BUSINESS", business_name: "Acme Ltd", email: "ops@acme.test" });
    expect(res.status).toBe(202);
    expect(res.body.status).toBe("success");
    const customer = res.body.data;
    expect(customer).toMatchObject({
      type: "BUSINESS",
      business_name: "Acme Ltd",
      first_name: null,
      status: "PROVISIONING",
      tier_1_complete: false,
      tier_2_complete: false,
      capabilities: {},
      rejection_reasons: [],
    });
    expect(Date.parse(customer.created_at)).not.toBeNaN();
    const provisioned = await eventually(async () => {
      const got = await api.call(a.apiKey, `/v1/customers/${customer.id}`);
      return got.body.data.status === "NOT_STARTED" ? got.body.data : undefined;
    });
    expect(provisioned.id).toBe(customer.id);
  });

  it("rejects a duplicate external_reference per merchant with 409, but allows it for another merchant", async () => {
    const first = await create(a, { type: "INDIVIDUAL", first_name: "A", last_name: "B", external_reference: "ext-1" });
    expect(first.status).toBe(202);
    const dup = await create(a, { type: "INDIVIDUAL", first_name: "C", last_name: "D", external_reference: "ext-1" });
    expect(dup.status).toBe(409);
    expect(dup.body.error).toBe("conflict");
    const other = await create(b, { type: "INDIVIDUAL", first_name: "C", last_name: "D", external_reference: "ext-1" });
    expect(other.status).toBe(202);
  });

  it("isolates merchants: B gets 404 for A's customer and never sees it in lists", async () => {
    const mine = await create(a, { type: "INDIVIDUAL", first_name: "Only", last_name: "A", external_reference: "iso" });
    const id = mine.body.data.id;
    const res = await api.call(b.apiKey, `/v1/customers/${id}`);
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ data: {}, error: "not_found" });
    const list = await api.call(b.apiKey, "/v1/customers?limit=200");
    expect(list.body.data.items.map((c: { id: string }) => c.id)).not.toContain(id);
    const filtered = await api.call(b.apiKey, "/v1/customers?external_reference=iso");
    expect(filtered.body.data.total).toBe(0);
  });

  it("filters by each parameter, newest first, with the pagination object", async () => {
    const m = await api.merchant();
    const made: string[] = [];
    for (let i = 0; i < 5; i++) {
      const type = i % 2 === 0 ? "INDIVIDUAL" : "BUSINESS";
      const json =
        type === "INDIVIDUAL"
          ? { type, first_name: `F${i}`, last_name: "L", external_reference: `ref-${i}` }
          : { type, business_name: `B${i}`, external_reference: `ref-${i}` };
      made.push((await create(m, json)).body.data.id);
      await new Promise((r) => setTimeout(r, 5));
    }
    const all = await api.call(m.apiKey, "/v1/customers");
    expect(all.body.data).toMatchObject({ limit: 50, page: 1, total: 5, total_pages: 1 });
    expect(all.body.data.items.map((c: { id: string }) => c.id)).toEqual([...made].reverse());

    const byType = await api.call(m.apiKey, "/v1/customers?type=BUSINESS");
    expect(byType.body.data.total).toBe(2);
    expect(byType.body.data.items.every((c: { type: string }) => c.type === "BUSINESS")).toBe(true);

    const byRef = await api.call(m.apiKey, "/v1/customers?external_reference=ref-3");
    expect(byRef.body.data.items.map((c: { id: string }) => c.id)).toEqual([made[3]]);

    await api.db.query("UPDATE customers SET status = 'APPROVED' WHERE id = $1", [made[1]]);
    const byStatus = await api.call(m.apiKey, "/v1/customers?status=APPROVED");
    expect(byStatus.body.data.items.map((c: { id: string }) => c.id)).toEqual([made[1]]);

    const third = all.body.data.items[2];
    const from = await api.call(m.apiKey, `/v1/customers?created_from=${encodeURIComponent(third.created_at)}`);
    expect(from.body.data.total).toBe(3);
    const to = await api.call(m.apiKey, `/v1/customers?created_to=${encodeURIComponent(third.created_at)}`);
    expect(to.body.data.total).toBe(3);
    const offset = third.created_at.replace("Z", "+00:00");
    const withOffset = await api.call(m.apiKey, `/v1/customers?created_from=${encodeURIComponent(offset)}`);
    expect(withOffset.body.data.total).toBe(3);

    const page2 = await api.call(m.apiKey, "/v1/customers?limit=2&page=2");
    expect(page2.body.data).toMatchObject({ limit: 2, page: 2, total: 5, total_pages: 3 });
    expect(page2.body.data.items.map((c: { id: string }) => c.id)).toEqual([made[2], made[1]]);
    const beyond = await api.call(m.apiKey, "/v1/customers?limit=2&page=9");
    expect(beyond.body.data).toMatchObject({ items: [], total: 5 });
  });

  it("answers 400 for bad filters and pagination", async () => {
    await api.expectQueriesRefused(a.apiKey, "/v1/customers", [
      "limit=0",
      "limit=201",
      "limit=abc",
      "limit=1.5",
      "page=0",
      "page=-1",
      "type=ROBOT",
      "status=DONE",
      "created_from=yesterday",
      "created_to=2024-01-01",
      "created_from=2024-01-01T00:00:00",
    ]);
    expect((await api.call(a.apiKey, "/v1/customers?limit=200&page=1")).status).toBe(200);
    expect((await api.call(a.apiKey, "/v1/customers?limit=1")).status).toBe(200);
  });
});
