import { request } from "node:http";
import { createMerchant } from "@mp/api";
import { silentLogger } from "@mp/core";
import { createSandboxRateProvider } from "@mp/providers";
import { beforeAll, describe, expect, it } from "vitest";
import { useTestDatabase } from "../../../test/support/test-database.ts";
import {
  createDashboardRouter,
  createPasswordLink,
  createUser,
  LOCKOUT_MINUTES,
  MAX_FAILED_SIGN_INS,
} from "../src/index.ts";
import { createUsers, PASSWORD } from "./support/dashboard-client.ts";
import { useDashboardSite } from "./support/use-dashboard-site.ts";

describe("dashboard JSON routes (sessions, CSRF, roles, merchant isolation, lockout)", () => {
  const testDb = useTestDatabase();
  const dashboard = useDashboardSite(() =>
    createDashboardRouter({
      db: testDb.db,
      logger: silentLogger(),
      rates: createSandboxRateProvider(),
      indexerStates: async () => [],
      signInsPerMinute: 1000,
    }),
  );
  let merchantA: string;
  let merchantB: string;
  let keyOfB: string;

  beforeAll(async () => {
    const db = testDb.db;
    const a = await createMerchant(db, { name: "A", environment: "sandbox" });
    const b = await createMerchant(db, { name: "B", environment: "production" });
    merchantA = a.merchantId;
    merchantB = b.merchantId;
    keyOfB = b.key.id;
    const users: Array<[string, "admin" | "owner" | "developer" | "viewer", string | undefined]> = [
      ["admin@example.com", "admin", undefined],
      ["owner-a@example.com", "owner", merchantA],
      ["dev-a@example.com", "developer", merchantA],
      ["viewer-a@example.com", "viewer", merchantA],
      ["owner-b@example.com", "owner", merchantB],
      ["locked@example.com", "owner", merchantA],
      ["everywhere@example.com", "viewer", merchantA],
    ];
    await createUsers(db, users);
  });

  it("refuses a wrong password and signs in with the right one: httpOnly, SameSite=Strict cookie scoped to /dashboard", async () => {
    const client = dashboard.client();
    expect((await client.signIn("owner-a@example.com", "not the password!")).status).toBe(401);
    expect((await client.signIn("nobody@example.com")).status).toBe(401);
    const answer = await client.signIn("Owner-A@Example.com");
    expect(answer.status).toBe(201);
    const cookie = answer.headers.get("set-cookie") ?? "";
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Strict/);
    expect(cookie).toMatch(/Path=\/dashboard/);
    // Plain HTTP on localhost: a Secure cookie would never come back.
    expect(cookie).not.toMatch(/Secure/);
    const session = await client.call("GET", "/session");
    expect(session.body.user).toMatchObject({ email: "owner-a@example.com", role: "owner", merchant_id: merchantA });
    expect(session.body.csrf_token).toBe(client.csrf);
    expect(session.headers.get("cache-control")).toBe("no-store");
  });

  it("sets Secure on the cookie when the dashboard is reached by a non-local name", async () => {
    // fetch may not set Host: node's own client may, as a proxy in front of the service would.
    const body = JSON.stringify({ email: "dev-a@example.com", password: PASSWORD });
    const setCookie = await new Promise<string>((resolve, reject) => {
      const req = request(
        `${dashboard.url}/dashboard/api/session`,
        { method: "POST", headers: { "content-type": "application/json", host: "payments.example.com" } },
        (res) => {
          res.resume();
          expect(res.statusCode).toBe(201);
          resolve(String(res.headers["set-cookie"]));
        },
      );
      req.on("error", reject);
      req.end(body);
    });
    expect(setCookie).toMatch(/; Secure/);
  });

  it("answers 401 without a session, and refuses a sign-in posted from another origin", async () => {
    const client = dashboard.client();
    expect((await client.call("GET", "/merchants")).status).toBe(401);
    expect((await client.call("POST", `/merchants/${merchantA}/api-keys`)).status).toBe(401);
    const crossSite = await client.call("POST", "/session", {
      json: { email: "owner-a@example.com", password: PASSWORD },
      origin: "https://evil.example",
    });
    expect(crossSite.status).toBe(403);
    expect(client.cookie).toBeUndefined();
  });

  it("refuses every write without the session's CSRF token (403), and creates a key with it", async () => {
    const client = dashboard.client();
    await client.signIn("owner-a@example.com");
    const before = await testDb.db.query("SELECT count(*)::int AS n FROM api_keys WHERE merchant_id = $1", [merchantA]);
    expect((await client.call("POST", `/merchants/${merchantA}/api-keys`, { csrf: null })).status).toBe(403);
    expect((await client.call("POST", `/merchants/${merchantA}/api-keys`, { csrf: "x".repeat(43) })).status).toBe(403);
    const other = dashboard.client();
    await other.signIn("dev-a@example.com");
    // Another session's token is not this session's.
    expect((await client.call("POST", `/merchants/${merchantA}/api-keys`, { csrf: other.csrf ?? "" })).status).toBe(
      403,
    );
    expect((await client.call("DELETE", "/session", { csrf: null })).status).toBe(403);
    const after = await testDb.db.query("SELECT count(*)::int AS n FROM api_keys WHERE merchant_id = $1", [merchantA]);
    expect(after.rows[0]).toEqual(before.rows[0]);

    const created = await client.call("POST", `/merchants/${merchantA}/api-keys`);
    expect(created.status).toBe(201);
    expect(created.body.api_key).toMatch(/^sk_sandbox_[A-Za-z0-9_-]{43}$/);
    expect(created.headers.get("cache-control")).toBe("no-store");
    const listed = await client.call("GET", `/merchants/${merchantA}/api-keys`);
    const item = listed.body.items.find((k: { id: string }) => k.id === created.body.id);
    expect(item).toMatchObject({ prefix: created.body.prefix, environment: "sandbox", revoked_at: null });
    // The listing never holds a secret.
    expect(JSON.stringify(listed.body)).not.toContain(created.body.api_key);
    const audit = await testDb.db.query("SELECT actor, action FROM operator_audit_log WHERE object_id = $1", [
      created.body.id,
    ]);
    expect(audit.rows).toEqual([{ actor: "dashboard:owner-a@example.com", action: "api_key.created" }]);

    const revoked = await client.call("POST", `/merchants/${merchantA}/api-keys/${created.body.id}/revoke`);
    expect(revoked.status).toBe(200);
    expect(revoked.body.revoked_at).not.toBeNull();
  });

  it("lets a viewer read the keys but neither create nor revoke one (403)", async () => {
    const client = dashboard.client();
    await client.signIn("viewer-a@example.com");
    expect((await client.call("GET", `/merchants/${merchantA}/api-keys`)).status).toBe(200);
    const create = await client.call("POST", `/merchants/${merchantA}/api-keys`);
    expect(create.status).toBe(403);
    expect(create.body.error).toBe("forbidden");
    const keys = await testDb.db.query<{ id: string }>(
      "SELECT id FROM api_keys WHERE merchant_id = $1 AND revoked_at IS NULL LIMIT 1",
      [merchantA],
    );
    const keyId = keys.rows[0]?.id;
    expect((await client.call("POST", `/merchants/${merchantA}/api-keys/${keyId}/revoke`)).status).toBe(403);
  });

  it("answers 404 to a user of merchant A for merchant B and B's keys, as the API does", async () => {
    const client = dashboard.client();
    await client.signIn("owner-a@example.com");
    expect((await client.call("GET", `/merchants/${merchantB}/api-keys`)).status).toBe(404);
    expect((await client.call("POST", `/merchants/${merchantB}/api-keys`)).status).toBe(404);
    expect((await client.call("POST", `/merchants/${merchantB}/api-keys/${keyOfB}/revoke`)).status).toBe(404);
    // B's key under A's own path: still not found, and still live.
    expect((await client.call("POST", `/merchants/${merchantA}/api-keys/${keyOfB}/revoke`)).status).toBe(404);
    expect((await client.call("GET", "/merchants/not-a-uuid/api-keys")).status).toBe(404);
    const live = await testDb.db.query("SELECT revoked_at FROM api_keys WHERE id = $1", [keyOfB]);
    expect(live.rows[0]).toEqual({ revoked_at: null });
    const merchants = await client.call("GET", "/merchants");
    expect(merchants.body.items.map((m: { id: string }) => m.id)).toEqual([merchantA]);
  });

  it("shows a merchant's overview (balance as /v1/balance computes it, recent deposits) to its users only", async () => {
    const client = dashboard.client();
    await client.signIn("viewer-a@example.com");
    const overview = await client.call("GET", `/merchants/${merchantA}/overview`);
    expect(overview.status).toBe(200);
    expect(overview.body).toEqual({
      balance: { currency: "USD", available: "0.000000", reserved: "0.000000", held: "0.000000", pending: "0.000000" },
      recent_deposits: [],
      total_deposits: 0,
    });
    expect((await client.call("GET", `/merchants/${merchantB}/overview`)).status).toBe(404);
  });

  it("lets the admin see every merchant and its keys", async () => {
    const client = dashboard.client();
    await client.signIn("admin@example.com");
    const merchants = await client.call("GET", "/merchants");
    expect(merchants.body.items.map((m: { id: string }) => m.id)).toEqual([merchantA, merchantB]);
    const overview = await client.call("GET", `/merchants/${merchantB}/overview`);
    expect(overview.status, JSON.stringify(overview.body)).toBe(200);
    const keys = await client.call("GET", `/merchants/${merchantB}/api-keys`);
    expect(keys.body.items.map((k: { id: string }) => k.id)).toContain(keyOfB);
  });

  it(`locks an account after ${MAX_FAILED_SIGN_INS} consecutive failures, even against the right password`, async () => {
    const client = dashboard.client();
    for (let i = 0; i < MAX_FAILED_SIGN_INS - 1; i++) {
      expect((await client.signIn("locked@example.com", `wrong password ${i}`)).status).toBe(401);
    }
    // A success resets the count: the failures must be consecutive.
    expect((await client.signIn("locked@example.com")).status).toBe(201);
    for (let i = 0; i < MAX_FAILED_SIGN_INS; i++) {
      expect((await client.signIn("locked@example.com", `wrong password ${i}`)).status).toBe(401);
    }
    const locked = await client.signIn("locked@example.com");
    expect(locked.status).toBe(429);
    expect(locked.body.message).toContain(`${LOCKOUT_MINUTES} minutes`);
    const audit = await testDb.db.query(
      "SELECT count(*)::int AS n FROM operator_audit_log WHERE action = 'dashboard_user.locked' AND actor = 'dashboard:locked@example.com'",
    );
    expect(audit.rows[0]).toEqual({ n: 1 });
    // A new password through a one-time link ends the lockout.
    const userId =
      (await testDb.db.query<{ id: string }>("SELECT id FROM dashboard_users WHERE email = 'locked@example.com'"))
        .rows[0]?.id ?? "";
    const token = await createPasswordLink(testDb.db, userId);
    expect((await client.call("POST", "/password", { json: { token, password: "a brand new password" } })).status).toBe(
      204,
    );
    expect((await client.signIn("locked@example.com", "a brand new password")).status).toBe(201);
  });

  it("sets a password through a one-time link: once, before it expires, and long enough", async () => {
    const db = testDb.db;
    const user = await createUser(db, {
      email: "new@example.com",
      role: "viewer",
      merchantId: merchantA,
      actor: "test",
    });
    const client = dashboard.client();
    // No password yet: nothing signs in.
    expect((await client.signIn("new@example.com", "")).status).toBe(400);
    const token = await createPasswordLink(db, user.id);
    expect((await client.call("POST", "/password", { json: { token, password: "short" } })).status).toBe(400);
    expect((await client.call("POST", "/password", { json: { token: "forged", password: PASSWORD } })).status).toBe(
      400,
    );
    expect((await client.call("POST", "/password", { json: { token, password: PASSWORD } })).status).toBe(204);
    expect(
      (await client.call("POST", "/password", { json: { token, password: "another long password" } })).status,
    ).toBe(400);
    expect((await client.signIn("new@example.com")).status).toBe(201);

    const late = await createPasswordLink(db, user.id);
    await db.query(
      "UPDATE dashboard_password_links SET expires_at = now() - interval '1 second' WHERE user_id = $1 AND used_at IS NULL",
      [user.id],
    );
    expect(
      (await client.call("POST", "/password", { json: { token: late, password: "too late password" } })).status,
    ).toBe(400);
  });

  it("signs out one session, and everywhere", async () => {
    const first = dashboard.client();
    const second = dashboard.client();
    await first.signIn("everywhere@example.com");
    await second.signIn("everywhere@example.com");
    const third = dashboard.client();
    await third.signIn("everywhere@example.com");
    expect((await third.call("DELETE", "/session")).status).toBe(204);
    expect((await third.call("GET", "/session")).status).toBe(401);
    expect((await first.call("GET", "/session")).status).toBe(200);

    const ended = await first.call("POST", "/session/sign-out-everywhere");
    expect(ended.body).toEqual({ sessions_ended: 2 });
    expect((await first.call("GET", "/session")).status).toBe(401);
    expect((await second.call("GET", "/session")).status).toBe(401);
  });

  it("refuses a disabled user's sessions and sign-ins", async () => {
    const client = dashboard.client();
    await client.signIn("dev-a@example.com");
    await testDb.db.query("UPDATE dashboard_users SET disabled_at = now() WHERE email = 'dev-a@example.com'");
    expect((await client.call("GET", "/session")).status).toBe(401);
    expect((await dashboard.client().signIn("dev-a@example.com")).status).toBe(401);
  });
});
