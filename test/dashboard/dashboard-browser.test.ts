import { randomBytes, randomUUID } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { TestDatabase } from "@mp/db/testing";
import type { Page, Request } from "playwright-core";
import { afterAll, describe, expect } from "vitest";
import { createUser } from "../../packages/dashboard/src/index.ts";
import { formatMoney } from "../../packages/dashboard-web/app/components/money.ts";
import {
  createMerchant as createLedgerMerchant,
  creditDeposit,
  type MerchantFixture,
} from "../../packages/ledger/test/ledger-fixtures.ts";
import { runCliOk, startService } from "../cli/run-cli.ts";
import { POSTGRES_ONLY, sharedProcessEnv, stopProcess } from "../e2e/several-processes.ts";
import { insertBankQuote } from "../support/quote-fixture.ts";
import { useTempDir, useTestDatabase } from "../support/test-database.ts";
import { createUsersWithPassword, PASSWORD, BROWSER_TIMEOUT_MS as TIMEOUT_MS } from "./browser-support.ts";
import { useDashboardBrowser } from "./use-dashboard-browser.ts";

/** A confirmed deposit row of another asset than the fixture's USDC (not credited: rows only). */
async function insertDeposit(
  db: TestDatabase["db"],
  m: MerchantFixture,
  d: { chain: string; asset: string; decimals: number; raw: string; usdMicros: bigint },
): Promise<void> {
  await db.query(
    `INSERT INTO deposits (id, merchant_id, wallet_id, destination_id, customer_id, chain, asset, to_address,
       tx_hash, position, block_height, block_hash, decimals, amount_raw, required_confirmations, status,
       usd_rate, amount_usd_micros, fee_usd_micros, net_amount_usd_micros, confirmed_at)
     VALUES (gen_random_uuid(), $1, $2, $3, $4, $5, $6, '0xto', $7, 'log:0', 1, '0xblock', $8, $9, 1, 'CONFIRMED',
       '1', $10, 0, $10, now())`,
    [
      m.merchantId,
      m.walletId,
      m.destinationId,
      m.customerId,
      d.chain,
      d.asset,
      `0x${randomBytes(32).toString("hex")}`,
      d.decimals,
      d.raw,
      d.usdMicros.toString(),
    ],
  );
}

const TRANSITIONS_TO: Record<string, string[]> = {
  AWAITING_MERCHANT_FUNDING: [],
  CANCELED: ["CANCELED"],
  COMPLETED: ["FUNDED", "PROCESSING", "COMPLETED"],
  FAILED: ["FUNDED", "PROCESSING", "FAILED"],
};

/**
 * A transfer of merchant `m` in `status`, from a quote of 40.00 USD (no fee) for 39.80 USDC on BASE:
 * the 50 bps spread (USD and USDC both at $1) kept 0.20 USDC.
 */
async function insertTransfer(
  db: TestDatabase["db"],
  m: MerchantFixture,
  t: { status: string; failureReason?: string },
): Promise<string> {
  const quoteId = await insertBankQuote(db, m, {
    sourceMicros: 40_000_000,
    feeMicros: 0,
    destinationMicros: 39_800_000,
    destinationAddress: "0x00000000000000000000000000000000000000a1",
    rate: "0.995",
    spreadBps: 50,
  });
  const transferId = randomUUID();
  await db.query(
    `INSERT INTO transfers (id, merchant_id, customer_id, quote_id, status, funding_mode, expires_at)
     VALUES ($1, $2, $3, $4, 'AWAITING_MERCHANT_FUNDING', 'TRANSFER_JIT', now() + interval '15 minutes')`,
    [transferId, m.merchantId, m.customerId, quoteId],
  );
  // Through the transitions the status guard allows, to the one wanted.
  for (const status of TRANSITIONS_TO[t.status] ?? []) {
    await db.query("UPDATE transfers SET status = $2, failure_reason = $3 WHERE id = $1", [
      transferId,
      status,
      status === "FAILED" ? (t.failureReason ?? null) : null,
    ]);
  }
  return transferId;
}

/** How an amount of each asset may look: separators every three digits, no more decimals than the asset's. */
const AMOUNT_SHAPES: Record<string, RegExp> = {
  USD: /^\$\d{1,3}(,\d{3})*\.\d{2}$/,
  USDC: /^\d{1,3}(,\d{3})*\.\d{2} USDC$/,
  BTC: /^\d{1,3}(,\d{3})*\.\d{2,8} BTC$/,
  ETH: /^\d{1,3}(,\d{3})*\.\d{2,6} ETH$/,
};

/**
 * The dashboard in a real browser against the real `payments serve` process: set a password from
 * the CLI's one-time link, sign in, create a key (shown once), use it on /v1, revoke it; a viewer
 * cannot create keys; merchant A's user gets 404 on merchant B; writes without the CSRF token are
 * refused; 10 bad passwords lock the account. Screenshots of every page go to a temporary folder.
 */
describe.skipIf(!process.env.DATABASE_URL)(`dashboard in Chromium ${POSTGRES_ONLY}`, () => {
  const dir = useTempDir("mpdashboard-");
  const database = useTestDatabase();
  let service: Awaited<ReturnType<typeof startService>> | undefined;
  let url: string;
  let env: Record<string, string>;
  let merchantA: string;
  let merchantB: string;
  let keyOfA: string;
  let keyOfB: string;
  let adminLink: string;
  let rich: MerchantFixture;

  const cli = async (args: string[]) => JSON.parse(await runCliOk(args, env));
  const { side: browserSide, itSignedIn, itOnNewPage, setUp } = useDashboardBrowser("dashboard", () => url);
  const shot = (page: Page, name: string) => browserSide.shot(page, name);
  const _signIn = (page: Page, email: string, password = PASSWORD) => browserSide.signIn(page, email, password);
  const fetchInPage = (page: Page, method: string, path: string, withCsrf: boolean) =>
    browserSide.fetchInPage(page, method, path, withCsrf);
  const expectAccessible = async (page: Page) => expect(await browserSide.seriousViolations(page)).toEqual([]);

  setUp(async () => {
    // One chain on its public mainnet (no node needed by the api role): its deposits link to an explorer.
    const chainsFile = join(dir, "chains.json");
    writeFileSync(
      chainsFile,
      JSON.stringify({ chains: { ETHEREUM: { rpcUrl: "http://127.0.0.1:9", network: "mainnet" } } }),
    );
    env = { ...sharedProcessEnv(database, dir), CHAINS_CONFIG: chainsFile };
    service = await startService(["--role", "api"], env);
    url = service.url;
    const a = await cli(["merchants", "create", "--name", "Merchant A", "--json"]);
    const b = await cli(["merchants", "create", "--name", "Merchant B", "--environment", "production", "--json"]);
    merchantA = a.merchant_id;
    keyOfA = a.api_key;
    merchantB = b.merchant_id;
    const keys = await database.db.query<{ id: string }>("SELECT id FROM api_keys WHERE merchant_id = $1", [merchantB]);
    keyOfB = keys.rows[0]?.id ?? "";
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
    await createUsersWithPassword(env, dir, [
      ["owner@a.example", "owner", merchantA],
      ["viewer@a.example", "viewer", merchantA],
      ["locked@a.example", "developer", merchantA],
    ] as const);
    // A merchant with money to show: a credited USDC deposit in the thousands, BTC and 18-decimal ETH.
    rich = await createLedgerMerchant(database.db);
    // The fixture takes the next derivation account by hand: move the counter past it, as createMerchant would.
    await database.db.query(
      "UPDATE counters SET value = (SELECT max(derivation_account) + 1 FROM merchants) WHERE name = 'merchant_derivation_account'",
    );
    await creditDeposit(database.db, rich, { gross: 13_745_620_000n, fee: 1_000_001n });
    await insertDeposit(database.db, rich, {
      chain: "BITCOIN",
      asset: "BTC",
      decimals: 8,
      raw: "250000",
      usdMicros: 162_500_000n,
    });
    await insertDeposit(database.db, rich, {
      chain: "ETHEREUM",
      asset: "ETH",
      decimals: 18,
      raw: "9999576777995230690",
      usdMicros: 31_234_567_891n,
    });
    for (const status of ["COMPLETED", "CANCELED", "AWAITING_MERCHANT_FUNDING"])
      await insertTransfer(database.db, rich, { status });
    await insertTransfer(database.db, rich, { status: "FAILED", failureReason: "the bank returned the payment (R03)" });
    // Straight through the store, not the CLI: each CLI run is a process start, slow on a busy machine.
    await createUser(database.db, {
      email: "owner@rich.example",
      role: "owner",
      merchantId: rich.merchantId,
      password: PASSWORD,
      actor: "test",
    });
  });

  afterAll(() => stopProcess(service?.child), TIMEOUT_MS);

  itOnNewPage(
    "sets the first admin's password from the one-time link, signs in and lists the merchants",
    async ({ context, page }) => {
      await page.goto(adminLink);
      await expect.poll(() => page.title()).toContain("Set password");
      await shot(page, "set-password");
      await expectAccessible(page);
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
    },
  );

  itSignedIn(
    "creates a key shown once with a copy button, which works on /v1 until revoked in the page",
    "owner@a.example",
    async ({ page }) => {
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
          .textContent();
        expect(shown).toBe(formatMoney(v1.data[part.toLowerCase()] ?? "", "USD", { locale: "en-US" }));
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
      await browserSide.shotBoth(page, "api-key-created");
      await expectAccessible(page);

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
      await expectAccessible(page);
      const refused = await fetch(`${url}/v1/balance`, { headers: { "X-Service-API-Key": apiKey } });
      expect(refused.status).toBe(401);

      // Small screens: the same page, one column.
      await page.setViewportSize({ width: 390, height: 844 });
      await shot(page, "api-keys-mobile");
    },
  );

  itSignedIn(
    "refuses a write without the session's CSRF token (403), and accepts it with the token",
    "owner@a.example",
    async ({ page }) => {
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
    },
  );

  itSignedIn(
    "answers 404 to merchant A's user for merchant B and B's key, in the page and on the server",
    "owner@a.example",
    async ({ page }) => {
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
    },
  );

  itSignedIn(
    "shows a viewer the keys without a create button, and the server refuses the viewer's create (403)",
    "viewer@a.example",
    async ({ page }) => {
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
    },
  );

  itOnNewPage("locks the account after 10 wrong passwords: the right one is refused then", async ({ page }) => {
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
  });

  itSignedIn(
    "shows every amount of the overview rounded to its asset's precision, with separators (issue 32)",
    "owner@rich.example",
    async ({ page }) => {
      await page.locator("tr[data-deposit]").nth(2).waitFor();
      await page.getByRole("img", { name: /Deposit volume per day/ }).waitFor();
      const available = page
        .locator(".stat")
        .filter({ hasText: /^Available/ })
        .locator(".stat-value");
      // 13,745.620000 credited less a fee of 1.000001: 13,744.619999, shown to the cent.
      expect(await available.textContent()).toBe("$13,744.62");
      const amounts = await page
        .locator(".money")
        .evaluateAll((nodes) =>
          nodes.map((node) => ({ asset: node.getAttribute("data-asset") ?? "", text: node.textContent ?? "" })),
        );
      expect(amounts.length).toBeGreaterThanOrEqual(4 + 3 * 2);
      for (const { asset, text } of amounts) {
        expect(text, asset).toMatch(AMOUNT_SHAPES[asset] ?? /^$/);
      }
      const texts = amounts.map((a) => a.text);
      expect(texts).toEqual(expect.arrayContaining(["0.0025 BTC", "$162.50", "9.999577 ETH", "$31,234.57"]));
      expect(texts).toContain("13,745.62 USDC");
      // Nowhere on the page (the chart's peak included) a figure of four digits or more without separators.
      const main = await page.locator("main").textContent();
      expect(main).not.toMatch(/\d{4,}\.\d/);
      expect(await page.locator(".chart .peak").textContent()).toMatch(/^Peak: \$45,142\.69 on \d{4}-\d{2}-\d{2}$/);
      await expectAccessible(page);
      await browserSide.shotBoth(page, "overview-money");
    },
  );

  itSignedIn(
    "opens a deposit's page from its row: tx hash with a copy button, an explorer link for its chain and network (issue 32)",
    "owner@rich.example",
    async ({ page }) => {
      const hash = (
        await database.db.query<{ tx_hash: string }>(
          "SELECT tx_hash FROM deposits WHERE merchant_id = $1 AND asset = 'ETH'",
          [rich.merchantId],
        )
      ).rows[0]?.tx_hash;
      await page.getByRole("link", { name: "9.999577 ETH" }).click();
      await page.getByRole("heading", { name: "Deposit of 9.999577 ETH", level: 1 }).waitFor();
      // Focus follows the navigation to the new page's heading.
      await expect.poll(() => page.evaluate("document.activeElement?.tagName")).toBe("H1");
      await page.getByText(hash ?? "-").waitFor();
      await page.getByRole("button", { name: "Copy transaction hash" }).click();
      expect(await page.evaluate("navigator.clipboard.readText()")).toBe(hash);
      const explorer = page.getByRole("link", { name: /View on etherscan\.io/ });
      expect(await explorer.getAttribute("href")).toBe(`https://etherscan.io/tx/${hash}`);
      await page.getByRole("button", { name: "Copy receiving address" }).waitFor();
      await page.getByText("Confirmed", { exact: true }).waitFor();
      await page.getByText("$31,234.57").first().waitFor();
      // The raw units only in the details view.
      expect(await page.getByText("9999576777995230690").isVisible()).toBe(false);
      await page.getByText("Exact amounts").click();
      await page.getByText("9999576777995230690").waitFor();
      await expectAccessible(page);
      await browserSide.shotBoth(page, "deposit-detail");

      // A chain this deployment does not run: no link, and the page says why.
      await page.goBack();
      await page.getByRole("link", { name: "0.0025 BTC" }).click();
      await page.getByRole("heading", { name: "Deposit of 0.0025 BTC", level: 1 }).waitFor();
      await page.getByText(/BITCOIN is not configured in this deployment/).waitFor();
      expect(await page.getByRole("link", { name: /View on/ }).count()).toBe(0);
    },
  );

  itSignedIn(
    "lists transfers with human state labels, the fee and the spread, filters them, and opens one with its failure reason",
    "owner@rich.example",
    async ({ page }) => {
      await page.getByRole("link", { name: "Transfers" }).click();
      await page.getByRole("heading", { name: "Transfers", level: 1 }).waitFor();
      const rows = page.locator("tr[data-transfer]");
      await expect.poll(() => rows.count()).toBe(4);
      const labels = await page.locator("tr[data-transfer] .state").allTextContents();
      expect(labels.sort()).toEqual(["Awaiting funding", "Canceled", "Completed", "Failed"]);
      // No raw status code anywhere in the list.
      expect(await page.locator("main").textContent()).not.toMatch(/AWAITING_MERCHANT_FUNDING|COMPLETED|LEDGER/);
      // Each state family has its own colour.
      // A string: this file is type-checked without the DOM library.
      const colours = (await page.evaluate(
        `[...document.querySelectorAll("tr[data-transfer] .state")].map((node) => getComputedStyle(node).backgroundColor)`,
      )) as string[];
      expect(new Set(colours).size).toBe(4);
      const completed = rows.filter({ hasText: "Completed" });
      await completed.getByText("$40.00").waitFor();
      await completed.getByText("39.80 USDC").waitFor();
      await completed.locator('[data-label="Fee"]').getByText("$0.00").waitFor();
      await completed.locator('[data-label="Spread"]').getByText("0.20 USDC").waitFor();
      await completed.getByText("(0.50%)").waitFor();
      await rows.filter({ hasText: "Failed" }).getByText("the bank returned the payment (R03)").waitFor();
      await expectAccessible(page);
      await browserSide.shotBoth(page, "transfers");

      // The API's status filter, by its label.
      await page.getByLabel("Status").selectOption({ label: "Failed" });
      await expect.poll(() => rows.count()).toBe(1);
      await rows.first().locator("a.row-link").click();
      await page.getByRole("heading", { name: "Transfer of 39.80 USDC", level: 1 }).waitFor();
      await page.getByRole("alert").filter({ hasText: "the bank returned the payment (R03)" }).waitFor();
      await page.getByText("0.20 USDC").waitFor();
      // A failed transfer shows no funding instructions.
      expect(await page.getByRole("heading", { name: "Funding instructions" }).count()).toBe(0);
      await expectAccessible(page);
    },
  );

  itSignedIn(
    "takes an ended session back to sign-in within 5 s, from a polling page and from a click, then back to the page",
    "owner@a.example",
    async ({ page }) => {
      const inFlight = new Set<Request>();
      const started = (request: Request) => inFlight.add(request);
      const finished = (request: Request) => inFlight.delete(request);
      page.on("request", started).on("requestfinished", finished).on("requestfailed", finished);
      await page.getByRole("link", { name: "Deposits" }).click();
      await page.getByRole("heading", { name: "Deposits", level: 1 }).waitFor();
      // The session ends on the server (expired, or signed out elsewhere): the page's next poll gets a 401.
      const user = await database.db.query<{ id: string }>("SELECT id FROM dashboard_users WHERE email = $1", [
        "owner@a.example",
      ]);
      await database.db.query("DELETE FROM dashboard_sessions WHERE user_id = $1", [user.rows[0]?.id]);
      const ended = Date.now();
      await page.getByRole("heading", { name: "Sign in to the dashboard" }).waitFor({ timeout: 5_000 });
      expect(Date.now() - ended).toBeLessThan(5_000);
      await page.getByText("Your session has ended. Sign in again to continue.").waitFor();
      await expectAccessible(page);
      await browserSide.shotBoth(page, "session-ended");
      // Signing in again goes back to where the session ended.
      await page.getByLabel("Email").fill("owner@a.example");
      await page.getByLabel("Password").fill(PASSWORD);
      await page.getByRole("button", { name: "Sign in" }).click();
      await page.getByRole("heading", { name: "Deposits", level: 1 }).waitFor();
      expect(page.url()).toBe(`${url}/dashboard/merchants/${merchantA}/deposits`);

      // A page that does not poll: its next request (a click) ends there too. The session ends only
      // once the page has loaded and no request is on its way (the list's first load, or the
      // deposits page's last poll), or that request would be the one meeting the 401.
      await page.getByRole("link", { name: "API keys" }).click();
      await page.getByRole("heading", { name: "API keys" }).waitFor();
      await expect.poll(() => page.locator('[aria-busy="true"]').count(), { timeout: 30_000 }).toBe(0);
      await expect.poll(() => inFlight.size, { timeout: 30_000 }).toBe(0);
      await database.db.query("DELETE FROM dashboard_sessions WHERE user_id = $1", [user.rows[0]?.id]);
      await page.getByRole("button", { name: "Create API key" }).click();
      await page.getByRole("heading", { name: "Sign in to the dashboard" }).waitFor({ timeout: 5_000 });
      page.off("request", started).off("requestfinished", finished).off("requestfailed", finished);
    },
  );
});
