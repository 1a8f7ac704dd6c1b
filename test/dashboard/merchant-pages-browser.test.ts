import { join } from "node:path";
import { createMerchant } from "@mp/api";
import { afterAll, describe, expect } from "vitest";
import { createUser } from "../../packages/dashboard/src/index.ts";
import { startRole } from "../cli/run-cli.ts";
import { POSTGRES_ONLY, stopProcessGroup } from "../e2e/several-processes.ts";
import { insertDeposits } from "../support/bulk-deposits.ts";
import { useTempDir, useTestDatabase } from "../support/test-database.ts";
import { PASSWORD, BROWSER_TIMEOUT_MS as TIMEOUT_MS } from "./browser-support.ts";
import { useDashboardBrowser } from "./use-dashboard-browser.ts";

/**
 * The merchant pages in a real browser against the real `payments serve --role all` process with
 * its local sandbox chains: a sandbox deposit sent from the deposits page appears there without a
 * reload, turns Confirmed, opens its own page and is found by its hash; every merchant page renders (screenshots); a viewer cannot create a
 * key or a webhook; merchant A's user gets 404 on B's deposit and customer.
 */
describe.skipIf(!process.env.DATABASE_URL)(`dashboard merchant pages in Chromium ${POSTGRES_ONLY}`, () => {
  const dir = useTempDir("mpmerchantpages-");
  const database = useTestDatabase();
  let service: Awaited<ReturnType<typeof startRole>> | undefined;
  let url: string;
  const { side, itSignedIn, setUp } = useDashboardBrowser("merchant pages", () => url);
  let merchantA: string;
  let merchantB: string;
  let customerOfA: string;
  let customerOfB: string;
  let depositOfB: string;

  const v1 = async (key: string, path: string, body: unknown, idempotencyKey: string) => {
    const res = await fetch(`${url}${path}`, {
      method: "POST",
      headers: { "x-service-api-key": key, "x-idempotency-key": idempotencyKey, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    const json = (await res.json()) as { data: { id: string } };
    expect(res.status, JSON.stringify(json)).toBeLessThan(300);
    return json.data;
  };

  setUp(async () => {
    // No MASTER_MNEMONIC: the sandbox makes its own, so no wallet address is a faucet's own account.
    const env = { DATABASE_URL: database.connectionString, DATA_DIR: join(dir, "data"), PORT: "0", HOST: "127.0.0.1" };
    // startRole runs it in a process group of its own: the local chains' anvils go with it.
    service = await startRole(["--role", "all"], env, /"url":"(http:\/\/[^"]+)".*api listening/);
    url = service.match[1] ?? "";
    // Straight through the stores, not the CLI: each CLI run is a process start, slow on a busy machine.
    const a = await createMerchant(database.db, { name: "Merchant A", environment: "sandbox" });
    const b = await createMerchant(database.db, { name: "Merchant B", environment: "production" });
    merchantA = a.merchantId;
    merchantB = b.merchantId;
    for (const [email, role, merchantId] of [
      ["owner@a.example", "owner", merchantA],
      ["viewer@a.example", "viewer", merchantA],
      ["owner@b.example", "owner", merchantB],
    ] as const) {
      await createUser(database.db, { email, role, merchantId, password: PASSWORD, actor: "test" });
    }
    const person = { type: "INDIVIDUAL", first_name: "Ada", last_name: "Lovelace", email: "ada@a.example" };
    customerOfA = (await v1(a.key.apiKey, "/v1/customers", person, "ca")).id;
    await v1(a.key.apiKey, "/v1/wallets", { customer_id: customerOfA, label: "main" }, "wa");
    customerOfB = (await v1(b.key.apiKey, "/v1/customers", { ...person, email: "ada@b.example" }, "cb")).id;
    const walletOfB = (await v1(b.key.apiKey, "/v1/wallets", { customer_id: customerOfB, label: "main" }, "wb")).id;
    await insertDeposits(database.db, walletOfB, { count: 1 });
    depositOfB =
      (await database.db.query<{ id: string }>("SELECT id FROM deposits WHERE wallet_id = $1", [walletOfB])).rows[0]
        ?.id ?? "";
  });

  afterAll(async () => {
    await stopProcessGroup(service?.child);
  }, TIMEOUT_MS);

  itSignedIn(
    "sends a sandbox deposit from the deposits page: it appears without a reload and turns CONFIRMED",
    "owner@a.example",
    async ({ page }) => {
      await side.openFromNav(page, "Deposits");
      await page.getByText("No deposits yet.").waitFor();
      await side.shot(page, "deposits-empty");
      // Survives only if the page is never reloaded.
      await page.evaluate("window.__noReload = true");
      await page.getByLabel("Chain", { exact: true }).first().selectOption("BASE");
      await page.getByLabel("Asset").selectOption("USDC");
      await page.getByLabel("Amount", { exact: true }).fill("25.50");
      await page.getByRole("button", { name: "Send test deposit" }).click();
      await page.getByText(/Test deposit of 25.50 USDC on BASE queued/).waitFor();
      const row = page.locator("tr[data-deposit]").filter({ hasText: "25.5" });
      await row.waitFor({ timeout: 90_000 });
      await side.shot(page, "deposits-arrived");
      // The live region says it, for who does not see the table.
      await page.getByRole("status").filter({ hasText: "New deposit: 25.50 USDC on BASE." }).waitFor();
      await row.getByText("Confirmed", { exact: true }).waitFor({ timeout: 90_000 });
      expect(await page.evaluate("window.__noReload")).toBe(true);
      const progress = await row.getByRole("progressbar").getAttribute("aria-label");
      expect(progress).toMatch(/^(\d+) of \1 confirmations$/);
      await side.shotBoth(page, "deposits-confirmed");
      await side.expectAccessible(page);
      // Filters: CONFIRMED keeps it, PENDING has none.
      await page.getByLabel("Status").selectOption("PENDING");
      await page.getByText("No deposits match these filters.").waitFor();
      await page.getByLabel("Status").selectOption("CONFIRMED");
      await row.waitFor();
      // The sandbox panel names each wallet by its label and its address on the chosen chain.
      expect(await page.getByLabel("Wallet").locator("option").first().textContent()).toMatch(
        /^main: 0x[0-9a-fA-F]{40}$/,
      );

      // The row opens the deposit's page: its transaction, a local chain's "no explorer", copy buttons.
      await row.getByRole("link").click();
      await page.getByRole("heading", { name: "Deposit of 25.50 USDC", level: 1 }).waitFor();
      const hash = await page
        .getByRole("button", { name: "Copy transaction hash" })
        .evaluate((button) => button.parentElement?.previousElementSibling?.textContent ?? "");
      expect(hash).toMatch(/^0x[0-9a-f]{64}$/);
      await page.getByText("None (local network: no public explorer)").waitFor();
      await page.getByRole("button", { name: "Copy sender address" }).waitFor();
      await page.getByRole("button", { name: "Copy receiving address" }).waitFor();
      await page.getByRole("link", { name: "Open the customer" }).waitFor();
      await side.shotBoth(page, "deposit-local");
      await side.expectAccessible(page);

      // Search: by its hash it is found, by an amount nobody sent it is not.
      await page.getByRole("link", { name: "← Deposits" }).click();
      await page.getByLabel("Transaction hash, address or amount").fill(hash);
      await row.waitFor();
      await page.getByLabel("Transaction hash, address or amount").fill("25.5");
      await row.waitFor();
      await page.getByLabel("Transaction hash, address or amount").fill("99.99");
      await page.getByText("No deposits match these filters.").waitFor();
      await page.getByLabel("Transaction hash, address or amount").fill("");
      await row.waitFor();
      await page.setViewportSize({ width: 390, height: 844 });
      await side.shot(page, "deposits-mobile");
    },
  );

  itSignedIn(
    "shows every merchant page: overview chart, customers and history, wallet QR codes, transfers, webhooks, team with an invite",
    "owner@a.example",
    async ({ page }) => {
      await page.getByRole("img", { name: /Deposit volume per day/ }).waitFor();
      await side.shotAndCheck(page, "overview-chart");

      await side.openFromNav(page, "Customers");
      await side.shotAndCheck(page, "customers");
      await page.getByRole("link", { name: "Ada Lovelace" }).click();
      await page.getByRole("heading", { name: "Verification history" }).waitFor();
      await page.getByText("No verification submitted yet.").waitFor();
      // Its deposits (the sandbox deposit of the first test), each opening the deposit's page.
      await page.getByRole("heading", { name: "Latest deposits" }).waitFor();
      expect(await page.locator("tr[data-deposit]").filter({ hasText: "25.50" }).count()).toBe(1);
      await side.shotAndCheck(page, "customer");

      await side.openFromNav(page, "Wallets");
      await side.shotAndCheck(page, "wallets");
      await page.getByRole("link", { name: "main" }).click();
      await page.getByRole("heading", { name: "Wallet main" }).waitFor();
      expect(await page.getByRole("img", { name: /^QR code of the / }).count()).toBe(10);
      // Every address has its copy button, named for its chain; the clipboard then holds the address.
      expect(await page.getByRole("button", { name: /^Copy [A-Z]+ address$/ }).count()).toBe(10);
      const base = page.locator("li.address").filter({ has: page.getByRole("heading", { name: "BASE" }) });
      const address = await base.locator("p.mono").textContent();
      await base.getByRole("button", { name: "Copy BASE address" }).click();
      await base.getByRole("status").filter({ hasText: "Copied" }).waitFor();
      await page.getByRole("button", { name: "Copied BASE address" }).waitFor();
      // A string: this file is type-checked without the DOM library.
      expect(await page.evaluate("navigator.clipboard.readText()")).toBe(address);
      await side.shotBoth(page, "wallet");
      await side.expectAccessible(page);

      await side.openFromNav(page, "Transfers");
      await page.getByText("No transfers yet.").waitFor();
      await side.shotAndCheck(page, "transfers");

      await side.openFromNav(page, "Webhooks");
      await page.getByText("No webhook endpoints yet.").waitFor();
      await page.getByLabel("Endpoint URL").fill("http://127.0.0.1:9/hooks");
      await page.getByRole("button", { name: "Add endpoint" }).click();
      const secret = page.getByRole("textbox", { name: "New signing secret" });
      await secret.waitFor();
      expect(await secret.inputValue()).toMatch(/^whsec_/);
      await page.getByRole("button", { name: "Copy New signing secret" }).click();
      expect(await page.evaluate("navigator.clipboard.readText()")).toBe(await secret.inputValue());
      await page.getByRole("button", { name: "Send test event" }).click();
      await page.getByText("Test event queued.").waitFor();
      await page.getByRole("button", { name: "Deliveries" }).click();
      await page.locator(".deliveries").waitFor();
      await side.shotAndCheck(page, "webhooks");

      await side.openFromNav(page, "Team");
      await page.getByLabel("Email").fill("dev@a.example");
      await page.getByLabel("Role", { exact: true }).selectOption("developer");
      await page.getByRole("button", { name: "Invite" }).click();
      const link = page.getByRole("textbox", { name: "Invitation link" });
      await link.waitFor();
      expect(await link.inputValue()).toMatch(new RegExp(`^${url}/dashboard/set-password#token=`));
      await page.getByRole("cell", { name: "Invited (no password yet)" }).waitFor();
      await page.getByRole("button", { name: "Copy Invitation link" }).click();
      expect(await page.evaluate("navigator.clipboard.readText()")).toBe(await link.inputValue());
      await side.shotBoth(page, "team");
      await side.expectAccessible(page);
    },
  );

  itSignedIn(
    "shows a viewer no key, webhook or sandbox controls, and the server refuses the viewer's writes (403)",
    "viewer@a.example",
    async ({ page }) => {
      await side.openFromNav(page, "Webhooks");
      await page.getByText(/Your role \(viewer\) can view webhook endpoints/).waitFor();
      expect(await page.getByRole("button", { name: "Add endpoint" }).count()).toBe(0);
      await side.shot(page, "webhooks-viewer");
      await side.openFromNav(page, "Deposits");
      expect(await page.getByRole("button", { name: "Send test deposit" }).count()).toBe(0);
      const base = `/dashboard/api/merchants/${merchantA}`;
      expect(await side.fetchInPage(page, "POST", `${base}/api-keys`, true)).toBe(403);
      expect(
        await side.fetchInPage(page, "POST", `${base}/webhook-endpoints`, true, {
          url: "https://hooks.example.com/x",
          enabled_events: ["*"],
        }),
      ).toBe(403);
      const endpoints = await database.db.query(
        "SELECT count(*)::int AS n FROM webhook_endpoints WHERE merchant_id = $1",
        [merchantA],
      );
      expect(endpoints.rows[0]).toEqual({ n: 1 });
    },
  );

  itSignedIn(
    "answers 404 to merchant A's user for B's deposit and customer, on the server and in the page",
    "owner@a.example",
    async ({ page }) => {
      for (const path of [
        `/merchants/${merchantA}/deposits/${depositOfB}`,
        `/merchants/${merchantA}/customers/${customerOfB}`,
        `/merchants/${merchantB}/deposits/${depositOfB}`,
        `/merchants/${merchantB}/customers/${customerOfB}`,
        `/merchants/${merchantB}/deposits`,
      ]) {
        expect(await side.fetchInPage(page, "GET", `/dashboard/api${path}`, false), path).toBe(404);
      }
      await page.goto(`${url}/dashboard/merchants/${merchantA}/customers/${customerOfB}`);
      await page.getByRole("heading", { name: "Customer not found" }).waitFor();
      await side.shot(page, "customer-not-found");
      await page.goto(`${url}/dashboard/merchants/${merchantB}/deposits`);
      await page.getByRole("heading", { name: "Merchant not found" }).waitFor();
      // B's owner sees it.
      const other = await side.signedInPage("owner@b.example");
      expect(
        await side.fetchInPage(
          other.page,
          "GET",
          `/dashboard/api/merchants/${merchantB}/deposits/${depositOfB}`,
          false,
        ),
      ).toBe(200);
      await other.context.close();
    },
  );
});
