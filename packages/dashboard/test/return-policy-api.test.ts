import { beforeAll, describe, expect, it } from "vitest";
import type { TestMerchant } from "../../../test/support/api-harness.ts";
import { createRoleUsers, createUsers } from "./support/dashboard-client.ts";
import { useServedDashboard } from "./support/use-dashboard-site.ts";

/**
 * Issue 29 (rest, item 4): a merchant's return policy from the dashboard's JSON routes (the spec has
 * no merchant settings resource under /v1): every role of the merchant reads it, its owner (and the
 * operator's admin) sets it, audited; other roles and other merchants' owners are refused.
 */
describe("dashboard: a merchant's return policy", () => {
  const { api, dashboard } = useServedDashboard();
  let a: TestMerchant;
  let b: TestMerchant;
  const path = () => `/merchants/${a.merchantId}/return-policy`;

  beforeAll(async () => {
    [a, b] = [await api.merchant("sandbox"), await api.merchant("sandbox")];
    await createRoleUsers(api.db, a.merchantId);
    await createUsers(api.db, [["owner@b.example", "owner", b.merchantId]]);
  });

  const audits = async () =>
    (
      await api.db.query<{ actor: string; action: string; details: unknown }>(
        "SELECT actor, action, details FROM operator_audit_log WHERE object_id = $1 ORDER BY id",
        [a.merchantId],
      )
    ).rows;

  it("every role reads it (credit by default); only the owner and the admin set it, audited once per change", async () => {
    for (const email of ["owner@a.example", "finance@a.example", "viewer@a.example", "developer@a.example"]) {
      const read = await (await dashboard.signedIn(email)).call("GET", path());
      expect(read.body, email).toEqual({ merchant_id: a.merchantId, return_policy: "credit" });
    }
    for (const email of ["finance@a.example", "viewer@a.example", "developer@a.example"]) {
      const refused = await (await dashboard.signedIn(email)).call("PUT", path(), {
        json: { return_policy: "return" },
      });
      expect(refused.status, email).toBe(403);
    }
    const other = await (await dashboard.signedIn("owner@b.example")).call("PUT", path(), {
      json: { return_policy: "return" },
    });
    expect(other.status).toBe(404);

    const owner = await dashboard.signedIn("owner@a.example");
    const bad = await owner.call("PUT", path(), { json: { return_policy: "refund" } });
    expect(bad.status).toBe(400);
    const set = await owner.call("PUT", path(), { json: { return_policy: "return" } });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    expect(set.body).toEqual({ merchant_id: a.merchantId, return_policy: "return" });
    // The same again changes nothing and audits nothing.
    expect((await owner.call("PUT", path(), { json: { return_policy: "return" } })).status).toBe(200);
    const stored = await api.db.query("SELECT return_policy FROM merchants WHERE id = $1", [a.merchantId]);
    expect(stored.rows).toEqual([{ return_policy: "return" }]);

    const admin = await dashboard.signedIn("admin@example.com");
    expect((await admin.call("PUT", path(), { json: { return_policy: "credit" } })).body.return_policy).toBe("credit");
    expect(await audits()).toEqual([
      {
        actor: "dashboard:owner@a.example",
        action: "merchant.return_policy_changed",
        details: { from: "credit", to: "return" },
      },
      {
        actor: "dashboard:admin@example.com",
        action: "merchant.return_policy_changed",
        details: { from: "return", to: "credit" },
      },
    ]);
  });
});
