import { beforeAll, describe, expect, it } from "vitest";
import type { TestMerchant } from "../../../test/support/api-harness.ts";
import { merchantsWithRoleUsers } from "./support/dashboard-client.ts";
import { useServedDashboard } from "./support/use-dashboard-site.ts";

/**
 * The team page's changes: an owner changes a role (the user's session follows at once), removes a
 * user (their session ends) or withdraws an invite; the last owner stays; other roles get 403,
 * another merchant's user 404; each change is audited.
 */
describe("dashboard team routes", () => {
  const { api, dashboard } = useServedDashboard();
  let a: TestMerchant;
  let b: TestMerchant;
  const idOf = async (email: string) =>
    (await api.db.query<{ id: string }>("SELECT id FROM dashboard_users WHERE email = $1", [email])).rows[0]?.id ?? "";

  beforeAll(async () => {
    ({ a, b } = await merchantsWithRoleUsers(api, { a: ["owner", "developer", "viewer"], b: ["owner"] }));
  }, 120_000);

  it("changes a role, and the user's open session has the new role at once", async () => {
    const owner = await dashboard.signedIn("owner@a.example");
    const viewer = await dashboard.signedIn("viewer@a.example");
    const viewerId = await idOf("viewer@a.example");
    const path = `/merchants/${a.merchantId}/users/${viewerId}`;
    expect((await viewer.call("PATCH", path, { json: { role: "owner" } })).status).toBe(403);
    const changed = await owner.call("PATCH", path, { json: { role: "finance" } });
    expect(changed.status, changed.text).toBe(200);
    expect(changed.body).toEqual({ id: viewerId, email: "viewer@a.example", role: "finance" });
    expect((await viewer.call("GET", "/session")).body.user.role).toBe("finance");
    expect((await owner.call("PATCH", path, { json: { role: "admin" } })).status).toBe(400);
    expect(
      (await owner.call("PATCH", `/merchants/${a.merchantId}/users/nope`, { json: { role: "viewer" } })).status,
    ).toBe(400);
    const audit = await api.db.query(
      "SELECT details FROM operator_audit_log WHERE action = 'dashboard_user.role_changed'",
    );
    expect(audit.rows).toEqual([{ details: { merchant_id: a.merchantId, from: "viewer", to: "finance" } }]);
  });

  it("keeps the last owner, refuses another merchant's user and removing oneself", async () => {
    const owner = await dashboard.signedIn("owner@a.example");
    const ownerId = await idOf("owner@a.example");
    const demote = await owner.call("PATCH", `/merchants/${a.merchantId}/users/${ownerId}`, {
      json: { role: "viewer" },
    });
    expect(demote.status).toBe(409);
    expect((await owner.call("DELETE", `/merchants/${a.merchantId}/users/${ownerId}`)).status).toBe(409);
    const otherOwner = await idOf("owner@b.example");
    expect((await owner.call("DELETE", `/merchants/${a.merchantId}/users/${otherOwner}`)).status).toBe(404);
    expect((await owner.call("DELETE", `/merchants/${b.merchantId}/users/${otherOwner}`)).status).toBe(404);
    expect((await dashboard.signedIn("owner@b.example")).csrf).toBeTruthy();
  });

  it("removes a user (their session ends) and withdraws an open invite", async () => {
    const owner = await dashboard.signedIn("owner@a.example");
    const dev = await dashboard.signedIn("developer@a.example");
    const devId = await idOf("developer@a.example");
    expect((await dev.call("DELETE", `/merchants/${a.merchantId}/users/${devId}`)).status).toBe(403);
    const removed = await owner.call("DELETE", `/merchants/${a.merchantId}/users/${devId}`);
    expect(removed.status, removed.text).toBe(200);
    expect(removed.body).toEqual({ id: devId, removed: "user" });
    expect((await dev.call("GET", "/session")).status).toBe(401);
    expect((await dev.signIn("developer@a.example")).status).toBe(401);
    const team = (await owner.call("GET", `/merchants/${a.merchantId}/users`)).body.items;
    expect(team.map((m: { email: string }) => m.email)).not.toContain("developer@a.example");

    const invited = await owner.call("POST", `/merchants/${a.merchantId}/invites`, {
      json: { email: "new@a.example", role: "viewer" },
    });
    expect(invited.status, invited.text).toBe(202);
    const inviteId = invited.body.user.id;
    const withdrawn = await owner.call("DELETE", `/merchants/${a.merchantId}/users/${inviteId}`);
    expect(withdrawn.body).toEqual({ id: inviteId, removed: "invite" });
    const after = (await owner.call("GET", `/merchants/${a.merchantId}/users`)).body.items;
    expect(after.map((m: { email: string }) => m.email)).not.toContain("new@a.example");
    expect((await owner.call("DELETE", `/merchants/${a.merchantId}/users/${inviteId}`)).status).toBe(404);
    const actions = await api.db.query<{ action: string }>(
      "SELECT action FROM operator_audit_log WHERE action IN ('dashboard_user.removed', 'dashboard_invite.withdrawn') ORDER BY id",
    );
    expect(actions.rows.map((r) => r.action)).toEqual(["dashboard_user.removed", "dashboard_invite.withdrawn"]);
  });
});
