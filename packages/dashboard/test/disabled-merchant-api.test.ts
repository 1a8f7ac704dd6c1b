import { beforeAll, describe, expect, it } from "vitest";
import type { TestMerchant } from "../../../test/support/api-harness.ts";
import { createUsers } from "./support/dashboard-client.ts";
import { useServedDashboard } from "./support/use-dashboard-site.ts";

/**
 * Issue 27 finding 7 through the real dashboard routes: a disabled merchant's dashboard users stop
 * working at once (every merchant-scoped route answers as for an ended session, a new sign-in is
 * refused) and enabling the merchant brings them back; an invite never tells whether an email has an
 * account in another tenant.
 */
describe("dashboard: a disabled merchant's users, and invites that reveal no other tenant", () => {
  const { api, dashboard } = useServedDashboard({
    overrides: { resolveWebhookHost: async () => [{ address: "93.184.216.34", family: 4 }] },
  });
  let a: TestMerchant;
  let b: TestMerchant;

  beforeAll(async () => {
    [a, b] = [await api.merchant("sandbox"), await api.merchant("sandbox")];
    const users = [
      ["admin@example.com", "admin", undefined],
      ["owner@a.example", "owner", a.merchantId],
      ["dev@a.example", "developer", a.merchantId],
      ["owner@b.example", "owner", b.merchantId],
    ] as const;
    await createUsers(api.db, users);
  });

  /** What a merchant user tries: read, create a key, a webhook endpoint, an invite. */
  const attempts = (merchantId: string) =>
    [
      ["GET", "/session", undefined],
      ["GET", "/merchants", undefined],
      ["GET", `/merchants/${merchantId}/customers`, undefined],
      ["GET", `/merchants/${merchantId}/deposits`, undefined],
      ["GET", `/merchants/${merchantId}/users`, undefined],
      ["GET", `/merchants/${merchantId}/api-keys`, undefined],
      ["POST", `/merchants/${merchantId}/api-keys`, {}],
      [
        "POST",
        `/merchants/${merchantId}/webhook-endpoints`,
        { url: "https://hooks.example.com/a", enabled_events: ["*"] },
      ],
      ["POST", `/merchants/${merchantId}/invites`, { email: "someone@a.example", role: "viewer" }],
    ] as const;

  it("refuses every merchant route and new sign-ins while the merchant is disabled; enabling restores the same sessions", async () => {
    const owner = await dashboard.signedIn("owner@a.example");
    const dev = await dashboard.signedIn("dev@a.example");
    const ownerB = await dashboard.signedIn("owner@b.example");
    const admin = await dashboard.signedIn("admin@example.com");
    expect((await owner.call("GET", `/merchants/${a.merchantId}/customers`)).status).toBe(200);

    expect((await admin.call("POST", `/operator/merchants/${a.merchantId}/disable`)).status).toBe(200);
    for (const user of [owner, dev]) {
      for (const [method, path, json] of attempts(a.merchantId)) {
        const answer = await user.call(method, path, json === undefined ? {} : { json });
        expect(answer.status, `${method} ${path}`).toBe(401);
        expect(answer.body).toMatchObject({ error: { code: "unauthorized" } });
      }
    }
    // Nothing was created meanwhile.
    const keys = await api.db.query("SELECT 1 FROM api_keys WHERE merchant_id = $1", [a.merchantId]);
    expect(keys.rowCount).toBe(1);
    const endpoints = await api.db.query("SELECT 1 FROM webhook_endpoints WHERE merchant_id = $1", [a.merchantId]);
    expect(endpoints.rowCount).toBe(0);
    const invites = await api.db.query("SELECT 1 FROM dashboard_invites WHERE merchant_id = $1", [a.merchantId]);
    expect(invites.rowCount).toBe(0);
    // A new session is refused, with the right password only told why.
    const again = dashboard.client();
    expect((await again.signIn("owner@a.example")).status).toBe(403);
    expect((await again.signIn("owner@a.example", "a wrong password indeed")).status).toBe(401);
    expect((await again.call("GET", "/session")).status).toBe(401);
    // The operator still sees the merchant; another merchant's users are untouched.
    expect((await admin.call("GET", `/merchants/${a.merchantId}/customers`)).status).toBe(200);
    expect((await ownerB.call("GET", `/merchants/${b.merchantId}/customers`)).status).toBe(200);
    expect((await ownerB.call("POST", `/merchants/${b.merchantId}/api-keys`, { json: {} })).status).toBe(201);

    expect((await admin.call("POST", `/operator/merchants/${a.merchantId}/enable`)).status).toBe(200);
    expect((await owner.call("GET", "/session")).status).toBe(200);
    expect((await owner.call("POST", `/merchants/${a.merchantId}/api-keys`, { json: {} })).status).toBe(201);
    expect((await dashboard.client().signIn("owner@a.example")).status).toBe(201);
  });

  it("answers an invite the same for a new email and for another tenant's user; only the merchant's own user is a 409", async () => {
    const owner = await dashboard.signedIn("owner@a.example");
    const path = `/merchants/${a.merchantId}/invites`;
    const fresh = await owner.call("POST", path, { json: { email: "Newcomer@A.example", role: "viewer" } });
    const elsewhere = await owner.call("POST", path, { json: { email: "owner@b.example", role: "viewer" } });
    const operator = await owner.call("POST", path, { json: { email: "admin@example.com", role: "viewer" } });
    for (const answer of [fresh, elsewhere, operator]) {
      expect(answer.status, answer.text).toBe(202);
      expect(Object.keys(answer.body).sort()).toEqual(["password_link", "user"]);
      expect(Object.keys(answer.body.user).sort()).toEqual(["email", "id", "role"]);
      expect(answer.body.password_link).toMatch(/\/dashboard\/set-password#token=[\w-]{43}$/);
      expect(answer.text).not.toMatch(/exists|already/i);
    }
    expect(fresh.body.user).toMatchObject({ email: "newcomer@a.example", role: "viewer" });
    expect(elsewhere.body.user).toMatchObject({ email: "owner@b.example", role: "viewer" });
    // The team page lists both the same way: invited, no password yet.
    const team = (await owner.call("GET", `/merchants/${a.merchantId}/users`)).body.items;
    for (const email of ["newcomer@a.example", "owner@b.example", "admin@example.com"]) {
      expect(team.find((u: { email: string }) => u.email === email)).toMatchObject({
        role: "viewer",
        has_password: false,
      });
    }
    // The merchant's own user: a clear 409 (no other tenant named).
    const own = await owner.call("POST", path, { json: { email: "dev@a.example", role: "viewer" } });
    expect(own.status).toBe(409);
    expect(own.body.message).toBe("dev@a.example is already a user of this merchant");

    // The new email's link creates the user; another tenant's user's link is refused as an invalid
    // link, and that account stays as it was.
    const tokenOf = (answer: { body: { password_link: string } }) =>
      new URLSearchParams(new URL(answer.body.password_link).hash.slice(1)).get("token");
    const visitor = dashboard.client();
    const used = await visitor.call("POST", "/password", {
      json: { token: tokenOf(fresh), password: "a fresh long password" },
    });
    expect(used.status, used.text).toBe(204);
    expect((await visitor.signIn("newcomer@a.example", "a fresh long password")).status).toBe(201);
    expect((await visitor.call("GET", "/session")).body.user).toMatchObject({
      id: fresh.body.user.id,
      role: "viewer",
      merchant_id: a.merchantId,
    });
    const taken = await visitor.call("POST", "/password", {
      json: { token: tokenOf(elsewhere), password: "another long password" },
    });
    const unknown = await visitor.call("POST", "/password", {
      json: { token: "x".repeat(43), password: "another long password" },
    });
    expect(taken.status).toBe(400);
    expect(taken.body).toEqual(unknown.body);
    expect((await dashboard.client().signIn("owner@b.example")).status).toBe(201);
    const ownerB = await api.db.query<{ merchant_id: string; role: string }>(
      "SELECT merchant_id, role FROM dashboard_users WHERE email = 'owner@b.example'",
    );
    expect(ownerB.rows).toEqual([{ merchant_id: b.merchantId, role: "owner" }]);
    // Used once.
    const twice = await visitor.call("POST", "/password", {
      json: { token: tokenOf(fresh), password: "a third long password" },
    });
    expect(twice.body).toEqual(unknown.body);
    const audit = await api.db.query(
      "SELECT actor, action FROM operator_audit_log WHERE object_id = $1 ORDER BY created_at, action",
      [fresh.body.user.id],
    );
    expect(audit.rows).toEqual([
      { actor: "dashboard:owner@a.example", action: "dashboard_invite.created" },
      { actor: "dashboard:owner@a.example", action: "dashboard_user.created" },
      { actor: "dashboard:newcomer@a.example", action: "dashboard_user.password_set" },
      { actor: "dashboard:newcomer@a.example", action: "dashboard_session.signed_in" },
    ]);
  });
});
