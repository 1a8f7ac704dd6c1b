import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { createTestDatabase, type TestDatabase } from "@mp/db/testing";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli, startService } from "../cli/run-cli.ts";
import { POSTGRES_ONLY, sharedProcessEnv, stopProcess } from "../e2e/several-processes.ts";
import { useTempDir } from "../support/test-database.ts";
import {
  launchChromium,
  newPage as newBrowserPage,
  PASSWORD,
  screenshotFolder,
  signIn as signInPage,
  userCreateArgs,
} from "./chromium-pages.ts";

const TIMEOUT_MS = 240_000;

/**
 * The dashboard in a real browser against the real `payments serve` process: set a password from
 * the CLI's one-time link, sign in, create a key (shown once), use it on /v1, revoke it; a viewer
 * cannot create keys; merchant A's user gets 404 on merchant B; writes without the CSRF token are
 * refused; 10 bad passwords lock the account. Screenshots of every page go to a temporary folder.
 */
describe.skipIf(!process.env.DATABASE_URL)(`dashboard in Chromium ${POSTGRES_ONLY}`, () => {
  const dir = useTempDir("mpdashboard-");
  let database: TestDatabase;
  let service: Awaited<ReturnType<typeof startService>> | undefined;
  let browser: Browser | undefined;
  let url: string;
  let env: Record<string, string>;
  let merchantA: string;
  let merchantB: string;
  let keyOfA: string;
  let keyOfB: string;
  let adminLink: string;

  const cli = async (args: string[]) => {
    const result = await runCli(args, env);
    expect(result.code, result.stderr).toBe(0);
    return JSON.parse(result.stdout);
  };
  let shot: (page: Page, name: string) => Promise<void>;
  const newPage = async (): Promise<{ context: BrowserContext; page: Page }> => {
    const opened = await newBrowserPage(browser);
    await opened.context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: url });
    return opened;
  };
  const signIn = (page: Page, email: string, password = PASSWORD) => signInPage(page, url, email, password);
  /** fetch from inside the page: the browser's own cookie, and the CSRF header only when asked. */
  const fetchInPage = (page: Page, method: string, path: string, withCsrf: boolean) =>
    page.evaluate(
      async ({ method, path, withCsrf }) => {
        const session = (await fetch("/dashboard/api/session").then((r) => r.json())) as { csrf_token: string };
        const headers: Record<string, string> = withCsrf ? { "x-csrf-token": session.csrf_token } : {};
        const res = await fetch(path, { method, headers });
        return res.status;
      },
      { method, path, withCsrf },
    );

  beforeAll(async () => {
    database = await createTestDatabase();
    env = sharedProcessEnv(database, dir);
    service = await startService(["--role", "api"], env);
    url = service.url;
    const a = await cli(["merchants", "create", "--name", "Merchant A", "--json"]);
    const b = await cli(["merchants", "create", "--name", "Merchant B", "--environment", "production", "--json"]);
    merchantA = a.merchant_id;
    keyOfA = a.api_key;
    merchantB = b.merchant_id;
    const keys = await database.db.query<{ id: string }>("SELECT id FROM api_keys WHERE merchant_id = $1", [merchantB]);
    keyOfB = keys.rows[0]?.id ?? "";
    const passwordFile = join(dir, "password.txt");
    writeFileSync(passwordFile, `${PASSWORD}\n`);
    adminLink = (
      await cli([
        "users",
        "create",
        "--email",
        "admin@example.com",
        "--role",
        "admin",
        "--dashboard-url",
        url,
        "--json",
      ])
    ).password_link;
    for (const [email, role, merchant] of [
      ["owner@a.example", "owner", merchantA],
      ["viewer@a.example", "viewer", merchantA],
      ["locked@a.example", "developer", merchantA],
    ] as const) {
      await cli(userCreateArgs(email, role, merchant, passwordFile));
    }
    browser = await launchChromium();
    shot = screenshotFolder("mp-dashboard-shots-", "dashboard");
  }, TIMEOUT_MS);

  afterAll(async () => {
    await browser?.close();
    await stopProcess(service?.child);
    await database?.drop();
  }, TIMEOUT_MS);

  it(
    "sets the first admin's password from the one-time link, signs in and lists the merchants",
    async () => {
      const { context, page } = await newPage();
      await page.goto(adminLink);
      await expect.poll(() => page.title()).toContain("Set password");
      await shot(page, "set-password");
      await page.getByLabel("New password").fill(PASSWORD);
      await page.getByLabel("Repeat the password").fill(PASSWORD);
      await page.getByRole("button", { name: "Set password" }).click();
      await page.getByText("Password set. Sign in with it now.").waitFor();
      // The link's token is gone from the address bar once used.
      expect(page.url()).not.toContain("token=");
      await shot(page, "sign-in");
      await page.getByLabel("Email").fill("admin@example.com");
      await page.getByLabel("Password").fill(PASSWORD);
      await page.getByRole("button", { name: "Sign in" }).click();
      await page.getByRole("heading", { name: "Merchants" }).waitFor();
      await page.getByRole("link", { name: "Merchant B" }).waitFor();
      await shot(page, "merchants");
      await page.getByRole("link", { name: "Merchant B" }).click();
      await page.getByRole("heading", { name: "Overview" }).waitFor();
      await page.getByRole("link", { name: "API keys" }).click();
      await page.getByRole("heading", { name: "API keys" }).waitFor();
      await expect.poll(() => page.locator(".badge-production").count()).toBeGreaterThan(0);

      // The link works once.
      const again = await context.newPage();
      await again.goto(adminLink);
      await again.getByLabel("New password").fill("another long password");
      await again.getByLabel("Repeat the password").fill("another long password");
      await again.getByRole("button", { name: "Set password" }).click();
      await again.getByText(/invalid, used or expired/).waitFor();
      await context.close();
    },
    TIMEOUT_MS,
  );

  it(
    "creates a key shown once with a copy button, which works on /v1 until revoked in the page",
    async () => {
      const { context, page } = await newPage();
      await signIn(page, "owner@a.example");
      await page.getByRole("heading", { name: "Overview" }).waitFor();
      expect(page.url()).toBe(`${url}/dashboard/merchants/${merchantA}/overview`);
      // The overview's balance is the one /v1/balance answers, to the digit.
      const v1 = (await (await fetch(`${url}/v1/balance`, { headers: { "X-Service-API-Key": keyOfA } })).json()) as {
        data: Record<string, string>;
      };
      for (const part of ["Available", "Reserved", "Pending", "Held"]) {
        const shown = await page
          .locator(".stat")
          .filter({ hasText: new RegExp(`^${part}`) })
          .locator(".stat-value")
          .innerText();
        expect(shown).toBe(`$${v1.data[part.toLowerCase()]}`);
      }
      await page.getByText("No deposits yet.").waitFor();
      await shot(page, "overview");
      await page.getByRole("link", { name: "API keys" }).click();
      await page.getByRole("heading", { name: "API keys" }).waitFor();
      await page.getByRole("button", { name: "Create API key" }).click();
      const secret = page.getByRole("textbox", { name: "New API key" });
      await secret.waitFor();
      const apiKey = await secret.inputValue();
      expect(apiKey).toMatch(/^sk_sandbox_[A-Za-z0-9_-]{43}$/);
      await page.getByRole("button", { name: "Copy" }).click();
      await page.getByRole("button", { name: "Copied" }).waitFor();
      // A string: this file is type-checked without the DOM library.
      expect(await page.evaluate("navigator.clipboard.readText()")).toBe(apiKey);
      await shot(page, "api-key-created");

      // A real HTTP request to /v1 with the new key.
      const balance = await fetch(`${url}/v1/balance`, { headers: { "X-Service-API-Key": apiKey } });
      expect(balance.status).toBe(200);

      await page.getByRole("button", { name: "I have stored it" }).click();
      await page.reload();
      await page.getByRole("heading", { name: "API keys" }).waitFor();
      // Once means once: no page holds the secret again.
      expect(await page.content()).not.toContain(apiKey);
      const prefix = apiKey.slice(0, "sk_sandbox_".length + 8);
      const row = page.getByRole("row").filter({ hasText: prefix });
      await row.getByRole("button", { name: /Revoke/ }).click();
      await row.getByRole("button", { name: "Revoke key" }).click();
      await row.getByText(/^Revoked/).waitFor();
      await shot(page, "api-keys");
      const refused = await fetch(`${url}/v1/balance`, { headers: { "X-Service-API-Key": apiKey } });
      expect(refused.status).toBe(401);

      // Small screens: the same page, one column.
      await page.setViewportSize({ width: 390, height: 844 });
      await shot(page, "api-keys-mobile");
      await context.close();
    },
    TIMEOUT_MS,
  );

  it(
    "refuses a write without the session's CSRF token (403), and accepts it with the token",
    async () => {
      const { context, page } = await newPage();
      await signIn(page, "owner@a.example");
      await page.getByRole("heading", { name: "Overview" }).waitFor();
      const path = `/dashboard/api/merchants/${merchantA}/api-keys`;
      const before = await database.db.query("SELECT count(*)::int AS n FROM api_keys WHERE merchant_id = $1", [
        merchantA,
      ]);
      expect(await fetchInPage(page, "POST", path, false)).toBe(403);
      expect(await fetchInPage(page, "DELETE", "/dashboard/api/session", false)).toBe(403);
      const after = await database.db.query("SELECT count(*)::int AS n FROM api_keys WHERE merchant_id = $1", [
        merchantA,
      ]);
      expect(after.rows[0]).toEqual(before.rows[0]);
      expect(await fetchInPage(page, "POST", path, true)).toBe(201);
      await context.close();
    },
    TIMEOUT_MS,
  );

  it(
    "answers 404 to merchant A's user for merchant B and B's key, in the page and on the server",
    async () => {
      const { context, page } = await newPage();
      await signIn(page, "owner@a.example");
      await page.getByRole("heading", { name: "Overview" }).waitFor();
      expect(await fetchInPage(page, "GET", `/dashboard/api/merchants/${merchantB}/overview`, false)).toBe(404);
      expect(await fetchInPage(page, "GET", `/dashboard/api/merchants/${merchantB}/api-keys`, false)).toBe(404);
      expect(
        await fetchInPage(page, "POST", `/dashboard/api/merchants/${merchantB}/api-keys/${keyOfB}/revoke`, true),
      ).toBe(404);
      expect(
        await fetchInPage(page, "POST", `/dashboard/api/merchants/${merchantA}/api-keys/${keyOfB}/revoke`, true),
      ).toBe(404);
      const live = await database.db.query("SELECT revoked_at FROM api_keys WHERE id = $1", [keyOfB]);
      expect(live.rows[0]).toEqual({ revoked_at: null });
      await page.goto(`${url}/dashboard/merchants/${merchantB}/api-keys`);
      await page.getByRole("heading", { name: "Merchant not found" }).waitFor();
      await shot(page, "merchant-not-found");
      await context.close();
    },
    TIMEOUT_MS,
  );

  it(
    "shows a viewer the keys without a create button, and the server refuses the viewer's create (403)",
    async () => {
      const { context, page } = await newPage();
      await signIn(page, "viewer@a.example");
      await page.getByRole("heading", { name: "Overview" }).waitFor();
      await page.getByRole("link", { name: "API keys" }).click();
      await page.getByRole("heading", { name: "API keys" }).waitFor();
      await page.getByText("Your role (viewer) can view keys but not create or revoke them.").waitFor();
      expect(await page.getByRole("button", { name: "Create API key" }).count()).toBe(0);
      expect(await page.getByRole("button", { name: /Revoke/ }).count()).toBe(0);
      await shot(page, "api-keys-viewer");
      expect(await fetchInPage(page, "POST", `/dashboard/api/merchants/${merchantA}/api-keys`, true)).toBe(403);

      // Sign out: the session is gone on the server too.
      await page.getByRole("button", { name: "Sign out", exact: true }).click();
      await page.getByText("You are signed out.").waitFor();
      expect(await page.evaluate(() => fetch("/dashboard/api/session").then((r) => r.status))).toBe(401);
      await shot(page, "signed-out");
      await context.close();
    },
    TIMEOUT_MS,
  );

  it(
    "locks the account after 10 wrong passwords: the right one is refused then",
    async () => {
      const { context, page } = await newPage();
      await page.goto(`${url}/dashboard/sign-in`);
      for (let i = 0; i < 10; i++) {
        await page.getByLabel("Email").fill("locked@a.example");
        await page.getByLabel("Password").fill(`wrong password ${i}`);
        await page.getByRole("button", { name: "Sign in" }).click();
        await page.getByRole("alert").filter({ hasText: "Invalid email or password" }).waitFor();
        // The next attempt starts from the cleared field the page leaves after a failure.
        await expect.poll(() => page.getByLabel("Password").inputValue()).toBe("");
      }
      await page.getByLabel("Password").fill(PASSWORD);
      await page.getByRole("button", { name: "Sign in" }).click();
      await page
        .getByRole("alert")
        .filter({ hasText: /locked after 10 failed sign-ins/ })
        .waitFor();
      await shot(page, "locked-out");
      const audit = await database.db.query(
        "SELECT count(*)::int AS n FROM operator_audit_log WHERE actor = 'dashboard:locked@a.example' AND action = 'dashboard_user.locked'",
      );
      expect(audit.rows[0]).toEqual({ n: 1 });
      await context.close();
    },
    TIMEOUT_MS,
  );
});
