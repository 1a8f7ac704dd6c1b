import { readFileSync } from "node:fs";
import { decimalToUnits, formatUsd } from "@mp/core";
import { recordSanctionsMatch, SANDBOX_SANCTIONED_ADDRESSES, STATEMENT_CSV_COLUMNS } from "@mp/providers";
import { storeTreasuryBalances } from "@mp/treasury";
import type { Page } from "playwright-core";
import { afterAll, describe, expect, it } from "vitest";
import { createMerchant as createLedgerMerchant, creditDeposit } from "../../packages/ledger/test/ledger-fixtures.ts";
import { individualTier1 } from "../api/verification-fixtures.ts";
import { runCliOk, startRole, startService } from "../cli/run-cli.ts";
import { POSTGRES_ONLY, sharedProcessEnv, stopProcess } from "../e2e/several-processes.ts";
import { writeChainsConfig } from "../support/chains-config-file.ts";
import { useTempDir, useTestDatabase } from "../support/test-database.ts";
import { createUsersWithPassword, OPERATOR_LANDING, BROWSER_TIMEOUT_MS as TIMEOUT_MS } from "./browser-support.ts";
import { useDashboardBrowser } from "./use-dashboard-browser.ts";

function micros(amount: string): bigint {
  const units = decimalToUnits(amount, 6);
  if (units === null) throw new Error(`not an amount: ${amount}`);
  return units;
}

/** Debit and credit totals of a journal CSV, in micro-USD (exact). */
function journalTotals(csv: string): { lines: number; debit: bigint; credit: bigint } {
  const rows = csv.trim().split("\n").slice(1);
  let debit = 0n;
  let credit = 0n;
  for (const row of rows) {
    // The merchant fixtures' references hold no commas: the last three fields are plain.
    const [d, c] = row.split(",").slice(-3);
    if (d) debit += micros(d);
    if (c) credit += micros(c);
  }
  return { lines: rows.length, debit, credit };
}

/**
 * The operator's and finance's pages in a real browser against real `payments serve` processes
 * (an API and a worker, KYC_PROVIDER=manual): an admin approves a submission in the review queue
 * and the customer's status changes on /v1; finance downloads journal CSVs whose totals match
 * `payments ledger export`; every new page is screenshotted (the folder is printed).
 */
describe.skipIf(!process.env.DATABASE_URL)(`dashboard operator and finance pages in Chromium ${POSTGRES_ONLY}`, () => {
  const dir = useTempDir("mpdashboard-ops-");
  const database = useTestDatabase();
  let service: Awaited<ReturnType<typeof startService>> | undefined;
  let worker: Awaited<ReturnType<typeof startRole>> | undefined;
  let url: string;
  let env: Record<string, string>;
  let apiKey: string;
  let ledgerMerchant: string;
  let merchantA: string;

  const cli = (args: string[]) => runCliOk(args, env);
  const { side, itSignedIn, setUp } = useDashboardBrowser("operator and finance page", () => url);
  const shot = (page: Page, name: string) => side.shot(page, name);
  const expectAccessible = async (page: Page) => expect(await side.seriousViolations(page)).toEqual([]);
  const v1 = async (method: string, path: string, json?: unknown) => {
    const res = await fetch(`${url}${path}`, {
      method,
      headers: {
        "X-Service-API-Key": apiKey,
        ...(json ? { "content-type": "application/json", "X-Idempotency-Key": `${path}-${Math.random()}` } : {}),
      },
      ...(json ? { body: JSON.stringify(json) } : {}),
    });
    return { status: res.status, body: (await res.json()) as { data: Record<string, unknown> } };
  };
  /** Clicks "Download CSV" and answers the downloaded file's content. */
  const download = async (page: Page): Promise<string> => {
    const [file] = await Promise.all([
      page.waitForEvent("download"),
      page.getByRole("button", { name: "Download CSV" }).click(),
    ]);
    const path = await file.path();
    return readFileSync(path, "utf8");
  };

  setUp(async () => {
    env = { ...sharedProcessEnv(database, dir), KYC_PROVIDER: "manual" };
    // A configured chain whose node is down: the chain reconciliation must say it cannot read it.
    const chainsConfig = writeChainsConfig(dir, { ARBITRUM: { rpcUrl: "http://127.0.0.1:9", network: "regtest" } });
    service = await startService(["--role", "api"], { ...env, CHAINS_CONFIG: chainsConfig });
    worker = await startRole(["--role", "worker"], env, /workers ready/);
    url = service.url;
    const created = JSON.parse(await cli(["merchants", "create", "--name", "Merchant A", "--json"]));
    apiKey = created.api_key;
    merchantA = created.merchant_id;
    const ledger = await createLedgerMerchant(database.db);
    ledgerMerchant = ledger.merchantId;
    // The fixture takes the next derivation account by hand: move the counter past it, as createMerchant would.
    await database.db.query(
      "UPDATE counters SET value = (SELECT max(derivation_account) + 1 FROM merchants) WHERE name = 'merchant_derivation_account'",
    );
    // Journal entries to export: two credited deposits of the ledger fixture's merchant.
    await creditDeposit(database.db, ledger, { gross: 12_500_000n, fee: 250_000n });
    await creditDeposit(database.db, ledger, { gross: 1_000_001n, fee: 1n });
    await createUsersWithPassword(env, dir, [
      ["admin@example.com", "admin", undefined],
      ["finance@ledger.example", "finance", ledgerMerchant],
    ]);
  });

  afterAll(async () => {
    await stopProcess(worker?.child);
    await stopProcess(service?.child);
  }, TIMEOUT_MS);

  it(
    "an admin approves a submission in the review queue and the customer's status changes on /v1",
    async () => {
      const customer = await v1("POST", "/v1/customers", {
        type: "INDIVIDUAL",
        first_name: "Ada",
        last_name: "Lovelace",
      });
      expect(customer.status).toBe(202);
      const customerId = String(customer.body.data.id);
      const submitted = await v1(
        "POST",
        `/v1/customers/${customerId}/verification-submissions`,
        individualTier1({ last_name: "Lovelace" }),
      );
      expect(submitted.status).toBe(202);
      const submissionId = String(submitted.body.data.id);

      const { context, page } = await side.signedInPage("admin@example.com", OPERATOR_LANDING);
      await page.getByRole("link", { name: "KYC reviews" }).click();
      await page.getByRole("heading", { name: "KYC reviews" }).waitFor();
      // The worker hands the attempt to the manual queue: it shows up after a reload or two.
      const review = page.getByRole("listitem").filter({ hasText: submissionId });
      const approve = review.getByRole("button", { name: /^Approve…/ });
      await expect
        .poll(
          async () => {
            if ((await approve.count()) === 0) await page.reload();
            return approve.count();
          },
          { timeout: 30_000, interval: 1_000 },
        )
        .toBe(1);
      expect((await v1("GET", `/v1/customers/${customerId}`)).body.data.status).toBe("UNDER_REVIEW");
      await shot(page, "operator-kyc-reviews");
      await expectAccessible(page);
      // A final decision is asked for twice: nothing is decided before "Confirm approval".
      await approve.click();
      expect((await v1("GET", `/v1/customers/${customerId}`)).body.data.status).toBe("UNDER_REVIEW");
      await review.getByRole("button", { name: "Confirm approval" }).click();
      await page
        .getByText(/submission: approved/i)
        .first()
        .waitFor();
      await expect
        .poll(async () => (await v1("GET", `/v1/customers/${customerId}`)).body.data.status, { timeout: 30_000 })
        .toBe("APPROVED");
      const audit = await database.db.query("SELECT actor, action FROM operator_audit_log WHERE object_id = $1", [
        submissionId,
      ]);
      expect(audit.rows).toEqual([{ actor: "dashboard:admin@example.com", action: "kyc.approved" }]);
      await page.getByLabel("Show").selectOption("ALL");
      await page.getByText(/Decided by dashboard:admin@example.com/).waitFor();
      await shot(page, "operator-kyc-reviews-decided");
      await context.close();
    },
    TIMEOUT_MS,
  );

  it(
    "finance downloads journal CSVs whose totals match `payments ledger export`, the merchant's and the platform's",
    async () => {
      const today = new Date();
      const from = `${today.getUTCFullYear()}-${String(today.getUTCMonth() + 1).padStart(2, "0")}-01`;
      const to = new Date(today.getTime() + 86_400_000).toISOString().slice(0, 10);

      const { context, page } = await side.signedInPage("finance@ledger.example");
      await page.getByRole("link", { name: "Finance" }).click();
      await page.getByRole("heading", { name: "Journal export (CSV)" }).waitFor();
      expect(await page.getByLabel("From (UTC day, included)").inputValue()).toBe(from);
      expect(await page.getByLabel("To (UTC day, excluded)").inputValue()).toBe(to);
      await shot(page, "finance-merchant-journal");
      const merchantCsv = await download(page);
      const merchantCli = await cli(["ledger", "export", "--from", from, "--to", to, "--merchant", ledgerMerchant]);
      expect(merchantCsv).toBe(merchantCli);
      // The merchant's side: its available balance credited 12.25 + 1.000000 USD net of fees.
      expect(journalTotals(merchantCsv)).toEqual({ lines: 2, debit: 0n, credit: 13_250_000n });
      expect(formatUsd(journalTotals(merchantCsv).credit)).toBe("13.250000");
      // Another merchant's journal is refused (404): the page stays and says so, no raw JSON page.
      await page.goto(`${url}/dashboard/merchants/${merchantA}/finance`);
      await page.getByRole("heading", { name: "Journal export (CSV)" }).waitFor();
      await page.getByRole("button", { name: "Download CSV" }).click();
      await page.getByRole("alert").filter({ hasText: "Merchant not found" }).waitFor();
      expect(page.url()).toBe(`${url}/dashboard/merchants/${merchantA}/finance`);
      await side.shotBoth(page, "finance-download-refused");
      await expectAccessible(page);
      // A finance user is no operator: the platform's pages are not theirs, and the server says so.
      await page.goto(`${url}/dashboard/finance/ledger`);
      await page.getByRole("heading", { name: "Page not found" }).waitFor();
      expect(await page.evaluate(() => fetch("/dashboard/api/finance/journal.csv").then((r) => r.status))).toBe(403);
      await context.close();

      const admin = await side.signedInPage("admin@example.com", OPERATOR_LANDING);
      await admin.page.getByRole("link", { name: "Ledger", exact: true }).click();
      await admin.page.getByRole("button", { name: "Run ledger check" }).click();
      await admin.page.getByText(/^OK: \d+ entries, \d+ merchants, 0 problems$/).waitFor();
      await shot(admin.page, "finance-ledger");
      await expectAccessible(admin.page);
      const platformCsv = await download(admin.page);
      const platformCli = await cli(["ledger", "export", "--from", from, "--to", to]);
      expect(platformCsv).toBe(platformCli);
      const totals = journalTotals(platformCsv);
      expect(totals).toEqual(journalTotals(platformCli));
      // Every entry balances: the platform's debits equal its credits.
      expect(totals.debit).toBe(totals.credit);
      expect(totals.lines).toBe(6);
      await admin.context.close();
    },
    TIMEOUT_MS,
  );

  it(
    "shows the transfers report the CLI prints, the merchant's to its finance people and the platform's to the admin",
    async () => {
      const { context, page } = await side.signedInPage("finance@ledger.example");
      await page.getByRole("link", { name: "Finance" }).click();
      await page.getByRole("heading", { name: "Transfers report" }).waitFor();
      await page.getByRole("button", { name: "Show report" }).click();
      // No transfers on this platform (no chain takes them): the empty state says so.
      await page.getByText("No transfers in this range.").waitFor();
      await shot(page, "finance-merchant-transfers-report");
      await context.close();

      const admin = await side.signedInPage("admin@example.com", OPERATOR_LANDING);
      await admin.page.getByRole("link", { name: "Ledger", exact: true }).click();
      const to = await admin.page.getByLabel("End (UTC day, excluded)").inputValue();
      // The start left open, as `payments transfers report --to` alone takes it.
      await admin.page.getByLabel("Start (UTC day, included)").fill("");
      await admin.page.getByRole("button", { name: "Show report" }).click();
      await admin.page.getByText("No transfers in this range.").waitFor();
      await shot(admin.page, "finance-transfers-report");
      const shown = await admin.page.evaluate(
        (day) => fetch(`/dashboard/api/finance/transfers-report?to=${day}`).then((r) => r.json()),
        to,
      );
      expect(shown).toEqual(JSON.parse(await cli(["transfers", "report", "--to", to, "--json"])));
      expect(shown).toMatchObject({ from: null, merchant_id: null, count: 0 });
      await admin.context.close();
    },
    TIMEOUT_MS,
  );

  itSignedIn(
    "shows the chain reconciliation's unreadable chain, imports a bank statement with its unmatched lines",
    { email: "admin@example.com", landing: OPERATOR_LANDING },
    async ({ page }) => {
      await page.getByRole("link", { name: "Bank statements" }).click();
      await page.getByRole("heading", { name: "Bank statements" }).waitFor();
      const csv = `${STATEMENT_CSV_COLUMNS.join(",")}\n2026-11-02,US000111222,CREDIT,250.10,USD,BANKREF-1,INV-7,ACME Corp\n`;
      await page
        .getByLabel("Statement file (CSV or camt.053 XML)")
        .setInputFiles({ name: "november.csv", mimeType: "text/csv", buffer: Buffer.from(csv) });
      await page.getByRole("button", { name: "Import statement" }).click();
      await page.getByText("Imported 1 lines (csv): 0 credited, 1 unmatched, 0 already imported.").waitFor();
      await page.getByRole("cell", { name: "no virtual account has the number US000111222" }).waitFor();
      await shot(page, "finance-bank-statements");
      await expectAccessible(page);

      await page.getByRole("link", { name: "Reconciliation" }).click();
      await page.getByRole("heading", { name: "Reconciliation", level: 1 }).waitFor();
      await page.getByRole("cell", { name: "november.csv (csv)" }).waitFor();
      await page.getByRole("button", { name: "Run chain reconciliation" }).click();
      await page
        .getByRole("alert")
        .filter({ hasText: "Cannot read ARBITRUM: the node did not answer." })
        .waitFor({ timeout: 60_000 });
      await page.getByText("Cannot read the chain").waitFor();
      await side.shotBoth(page, "finance-reconciliation");
      await expectAccessible(page);
      // The unmatched line leaves the bank suspense from this page: returned to the payer, with why.
      await page.getByLabel("Return reason").fill("Unknown account: sent back to ACME Corp");
      await page.getByRole("button", { name: "Return to payer" }).click();
      await page.getByText("No unmatched lines: every statement line is accounted for.").waitFor();
    },
  );

  itSignedIn(
    "shows every operator page: merchants (create, disable: its key answers 401), chains, job queues, treasury",
    { email: "admin@example.com", landing: OPERATOR_LANDING },
    async ({ page }) => {
      // One merchants page (issue 32): the home lists, creates, disables and enables them.
      await page.getByRole("link", { name: "Merchants", exact: true }).click();
      await page.getByRole("heading", { name: "Merchants", level: 1 }).waitFor();
      await page.getByRole("button", { name: "Create merchant" }).waitFor();
      await page.getByLabel("Merchant name").fill("Shop from the dashboard");
      await page.getByRole("button", { name: "Create merchant" }).click();
      const key = await page.getByRole("textbox", { name: "First API key" }).inputValue();
      expect(key).toMatch(/^sk_sandbox_/);
      await page.getByRole("button", { name: "Copy First API key" }).click();
      expect(await page.evaluate("navigator.clipboard.readText()")).toBe(key);
      await shot(page, "operator-merchant-created");
      await expectAccessible(page);
      const balance = () => fetch(`${url}/v1/balance`, { headers: { "X-Service-API-Key": key } }).then((r) => r.status);
      expect(await balance()).toBe(200);
      await page.getByRole("button", { name: "I have stored it" }).click();
      await page.getByRole("button", { name: "Disable Shop from the dashboard" }).click();
      await page.getByRole("button", { name: "Disable merchant", exact: true }).click();
      await page.getByRole("button", { name: "Enable Shop from the dashboard" }).waitFor();
      expect(await balance()).toBe(401);
      await side.shotBoth(page, "operator-merchants");
      await expectAccessible(page);

      await page.getByRole("link", { name: "Chains" }).click();
      await page.getByRole("heading", { name: "Chains" }).waitFor();
      await page
        .getByText(/No chain is indexed yet|Indexer state of each chain/)
        .first()
        .waitFor();
      await shot(page, "operator-chains");
      await expectAccessible(page);
      await page.getByRole("link", { name: "Job queues" }).click();
      await page.getByRole("heading", { name: "Job queues" }).waitFor();
      await page.getByRole("rowheader", { name: "customer.provision" }).waitFor();
      await shot(page, "operator-job-queues");
      await expectAccessible(page);
      await page.getByRole("link", { name: "Treasury" }).click();
      await page.getByRole("heading", { name: "Treasury" }).waitFor();
      await page.getByText("No pending sends.").waitFor();
      // A balance of 18 decimals reads rounded to ETH's six; every digit and the wei are in its Exact details.
      await storeTreasuryBalances(database.db, "ETHEREUM", [
        { asset: "ETH", amountRaw: 9_999_576_777_995_230_690n, decimals: 18 },
      ]);
      await page.getByRole("button", { name: "Refresh" }).click();
      const ethRow = page.getByRole("row").filter({ hasText: "ETHEREUM" });
      expect(await ethRow.locator(".money").textContent()).toBe("9.999577 ETH");
      await ethRow.getByText("Exact").click();
      await ethRow.getByText("9.99957677799523069 ETH").waitFor();
      await ethRow.getByText("9999576777995230690 (smallest units)").waitFor();
      await side.shotBoth(page, "operator-treasury");
      await expectAccessible(page);
      // Small screens: one column, tables as stacked rows.
      await page.setViewportSize({ width: 390, height: 844 });
      await page.getByRole("link", { name: "Job queues" }).click();
      await page.getByRole("rowheader", { name: "customer.provision" }).waitFor();
      await shot(page, "operator-job-queues-mobile");
    },
  );

  it(
    "the sanctions page lists a refused destination and says no deposit is held, accessible (issue 29)",
    async () => {
      const [magic] = SANDBOX_SANCTIONED_ADDRESSES;
      if (!magic) throw new Error("the sandbox's magic address");
      // A payout refused at quote, as the quote route records it.
      await database.db.tx((client) =>
        recordSanctionsMatch(client, {
          context: "quote",
          hit: { address: magic, list: "sandbox" },
          chain: "BASE",
          merchantId: merchantA,
          reference: null,
        }),
      );
      const { context, page } = await side.signedInPage("admin@example.com", OPERATOR_LANDING);
      await page.getByRole("link", { name: "Sanctions" }).click();
      await page.getByRole("heading", { name: "Sanctions" }).waitFor();
      await page.getByText("No deposit is held for a sanctions match.").waitFor();
      const row = page.getByRole("row").filter({ hasText: magic });
      await row.waitFor();
      expect(await row.getByRole("cell").allTextContents()).toEqual([
        expect.any(String),
        "quote",
        magic,
        "BASE",
        "sandbox",
        "—",
      ]);
      await side.shotBoth(page, "operator-sanctions");
      await expectAccessible(page);
      // Small screens: the tables as stacked rows, still accessible.
      await page.setViewportSize({ width: 390, height: 844 });
      await row.waitFor();
      await shot(page, "operator-sanctions-mobile");
      await expectAccessible(page);
      await context.close();
    },
    TIMEOUT_MS,
  );
});
