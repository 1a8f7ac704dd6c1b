import { beforeAll, describe, expect, it } from "vitest";
import { createUsers } from "./support/dashboard-client.ts";
import { useServedDashboard } from "./support/use-dashboard-site.ts";

/**
 * Creating a merchant with an owner's email invites that owner at once: the answer carries the
 * one-time link (beside the first key), the link sets the password of an owner of that merchant
 * alone, the invite is audited; a bad email is a 400 before any merchant exists.
 */
describe("dashboard: a new merchant's first owner", () => {
  const { api, dashboard } = useServedDashboard();

  beforeAll(async () => {
    await createUsers(api.db, [["admin@example.com", "admin", undefined]]);
  }, 120_000);

  const merchantCount = async () =>
    Number((await api.db.query<{ n: string }>("SELECT count(*) AS n FROM merchants")).rows[0]?.n);

  it("invites the owner with the merchant, and the link makes an owner of that merchant alone", async () => {
    const admin = await dashboard.signedIn("admin@example.com");
    const created = await admin.call("POST", "/operator/merchants", {
      json: { name: "Shop", environment: "sandbox", owner_email: "Founder@Shop.example" },
    });
    expect(created.status, created.text).toBe(201);
    expect(created.headers.get("cache-control")).toBe("no-store");
    expect(created.body.api_key).toMatch(/^sk_sandbox_[A-Za-z0-9_-]{43}$/);
    expect(created.body.owner_invite.email).toBe("founder@shop.example");
    const link = new URL(created.body.owner_invite.password_link);
    expect(link.pathname).toBe("/dashboard/set-password");

    const audit = await api.db.query<{ action: string; details: { merchant_id: string; role: string } }>(
      "SELECT action, details FROM operator_audit_log WHERE action = 'dashboard_invite.created'",
    );
    expect(audit.rows).toEqual([
      { action: "dashboard_invite.created", details: expect.objectContaining({ merchant_id: created.body.id }) },
    ]);
    const team = await admin.call("GET", `/merchants/${created.body.id}/users`);
    expect(team.body.items).toEqual([expect.objectContaining({ email: "founder@shop.example", role: "owner" })]);

    const founder = dashboard.client();
    const token = new URLSearchParams(link.hash.slice(1)).get("token");
    const set = await founder.call("POST", "/password", { json: { token, password: "a long founder password" } });
    expect(set.status, set.text).toBe(204);
    expect((await founder.signIn("founder@shop.example", "a long founder password")).status).toBe(201);
    const session = await founder.call("GET", "/session");
    expect(session.body.user).toMatchObject({ role: "owner", merchant_id: created.body.id });
    // An owner of this merchant only: the platform's pages stay closed.
    expect((await founder.call("GET", "/operator/merchants")).status).toBe(403);
  });

  it("creates no owner without an email, and refuses a bad one before creating the merchant", async () => {
    const admin = await dashboard.signedIn("admin@example.com");
    const plain = await admin.call("POST", "/operator/merchants", { json: { name: "Plain", environment: "sandbox" } });
    expect(plain.status, plain.text).toBe(201);
    expect(plain.body.owner_invite).toBeNull();
    expect((await admin.call("GET", `/merchants/${plain.body.id}/users`)).body.items).toEqual([]);

    const before = await merchantCount();
    const bad = await admin.call("POST", "/operator/merchants", {
      json: { name: "Bad", environment: "sandbox", owner_email: "not an email" },
    });
    expect(bad.status).toBe(400);
    expect(bad.text).toMatch(/owner_email/);
    expect(await merchantCount()).toBe(before);
  });
});
