import { beforeAll, describe, expect, it } from "vitest";
import { createCustomer } from "../../../test/api/verification-fixtures.ts";
import type { TestMerchant } from "../../../test/support/api-harness.ts";
import { merchantsWithRoleUsers } from "./support/dashboard-client.ts";
import { recordAuditRows } from "./support/record-audit-rows.ts";
import { useServedDashboard } from "./support/use-dashboard-site.ts";

/**
 * The records pages' routes: a merchant's events log (GET /v1/events through the session, its
 * filters, another merchant's 404) and the operator's audit log (admin only, exact filters,
 * keyset pages, a bad filter's 400).
 */
describe("dashboard events and audit log routes", () => {
  const { api, dashboard } = useServedDashboard();
  let a: TestMerchant;
  let b: TestMerchant;

  beforeAll(async () => {
    ({ a, b } = await merchantsWithRoleUsers(api, { a: ["viewer", "owner"], admin: true }));
    await createCustomer(api, a);
    await createCustomer(api, a);
    await createCustomer(api, b);
    await recordAuditRows(api.db, {
      count: 5,
      action: "test.paged",
      prefix: "obj",
      merchantOf: (i) => (i < 3 ? a.merchantId : b.merchantId),
    });
  }, 120_000);

  it("lists the merchant's own events with the API's filters; another merchant's are 404", async () => {
    const viewer = await dashboard.signedIn("viewer@a.example");
    const all = await viewer.call("GET", `/merchants/${a.merchantId}/events?limit=50`);
    expect(all.status, all.text).toBe(200);
    expect(all.body.total).toBeGreaterThanOrEqual(2);
    const created = await viewer.call("GET", `/merchants/${a.merchantId}/events?type=customer.created`);
    expect(created.body.items).toHaveLength(2);
    expect(new Set(created.body.items.map((e: { type: string }) => e.type))).toEqual(new Set(["customer.created"]));
    const objectId = created.body.items[0].object_id;
    const one = await viewer.call("GET", `/merchants/${a.merchantId}/events?object_id=${objectId}`);
    expect(one.body.items.every((e: { object_id: string }) => e.object_id === objectId)).toBe(true);
    expect((await viewer.call("GET", `/merchants/${a.merchantId}/events?delivery_failed=true`)).body.total).toBe(0);
    const future = await viewer.call("GET", `/merchants/${a.merchantId}/events?created_from=2999-01-01T00:00:00Z`);
    expect(future.body.total).toBe(0);
    const bad = await viewer.call("GET", `/merchants/${a.merchantId}/events?type=nope`);
    expect(bad.status).toBe(400);
    expect((await viewer.call("GET", `/merchants/${b.merchantId}/events`)).status).toBe(404);
  });

  it("shows the audit log to the admin alone, newest first, filtered and paged by id", async () => {
    const admin = await dashboard.signedIn("admin@example.com");
    const newest = await admin.call("GET", "/operator/audit-log");
    expect(newest.status, newest.text).toBe(200);
    // The sign-ins above are audited too, newest first.
    expect(newest.body.items[0]).toMatchObject({
      actor: "dashboard:admin@example.com",
      action: "dashboard_session.signed_in",
    });
    const ids = newest.body.items.map((row: { id: string }) => Number(row.id));
    expect(ids).toEqual([...ids].sort((x, y) => y - x));

    const first = await admin.call("GET", "/operator/audit-log?action=test.paged&limit=2");
    expect(first.body.items.map((row: { object_id: string }) => row.object_id)).toEqual(["obj-4", "obj-3"]);
    expect(first.body.next).toBe(first.body.items[1].id);
    const second = await admin.call("GET", `/operator/audit-log?action=test.paged&limit=2&before=${first.body.next}`);
    expect(second.body.items.map((row: { object_id: string }) => row.object_id)).toEqual(["obj-2", "obj-1"]);
    const last = await admin.call("GET", `/operator/audit-log?action=test.paged&limit=2&before=${second.body.next}`);
    expect(last.body).toMatchObject({ items: [{ object_id: "obj-0", actor: "cli:ops" }], next: null });

    const ofA = await admin.call("GET", `/operator/audit-log?action=test.paged&merchant_id=${a.merchantId}`);
    expect(ofA.body.items.map((row: { object_id: string }) => row.object_id)).toEqual(["obj-2", "obj-1", "obj-0"]);
    expect(ofA.body.items[0].details).toEqual({ merchant_id: a.merchantId });
    const byObject = await admin.call("GET", "/operator/audit-log?object_type=merchant&object_id=obj-3");
    expect(byObject.body.items).toHaveLength(1);
    const byActor = await admin.call("GET", "/operator/audit-log?actor=dashboard:viewer@a.example");
    expect(byActor.body.items.length).toBeGreaterThan(0);
    expect(byActor.body.items.every((row: { actor: string }) => row.actor === "dashboard:viewer@a.example")).toBe(true);
    const future = await admin.call("GET", "/operator/audit-log?created_from=2999-01-01T00:00:00Z");
    expect(future.body).toEqual({ items: [], next: null });

    for (const query of ["before=abc", "limit=0", "limit=201", "created_to=yesterday", "merchant_id=42"]) {
      const bad = await admin.call("GET", `/operator/audit-log?${query}`);
      expect(bad.status, query).toBe(400);
    }
  });

  it("refuses the audit log to every merchant role and to no session", async () => {
    for (const email of ["viewer@a.example", "owner@a.example"]) {
      const user = await dashboard.signedIn(email);
      expect((await user.call("GET", "/operator/audit-log")).status, email).toBe(403);
    }
    const res = await fetch(`${dashboard.url}/dashboard/api/operator/audit-log`);
    expect(res.status).toBe(401);
  });
});
