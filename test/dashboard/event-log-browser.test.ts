import { describe, expect } from "vitest";
import { merchantsWithRoleUsers } from "../../packages/dashboard/test/support/dashboard-client.ts";
import { recordAuditRows } from "../../packages/dashboard/test/support/record-audit-rows.ts";
import type { TestMerchant } from "../support/api-harness.ts";
import { OPERATOR_LANDING } from "./browser-support.ts";
import { useChromiumDashboard } from "./use-dashboard-browser.ts";

/**
 * The events log (a merchant's owner) and the audit log (the operator) in Chromium against the
 * dashboard router in this process: each page opens from the nav as a lazy chunk and takes the
 * focus on its heading, its filters narrow the rows the API answers, an event opens its object's
 * page, the audit log walks to older rows; another merchant's events and the audit log for a
 * merchant user are refused inside the app; axe finds nothing serious at either size.
 */
describe.skipIf(!process.env.DATABASE_URL)("dashboard events and audit log pages in Chromium", () => {
  const { api, dashboard, side, itSignedIn, setUp } = useChromiumDashboard("events and audit log");
  let a: TestMerchant;
  let b: TestMerchant;
  let customerId: string;

  setUp(async () => {
    ({ a, b } = await merchantsWithRoleUsers(api, { a: ["owner"], admin: true }));
    const created = await api.call(a.apiKey, "/v1/customers", {
      method: "POST",
      idempotencyKey: "c-ada",
      json: { type: "INDIVIDUAL", first_name: "Ada", last_name: "Lovelace" },
    });
    expect(created.status, created.text).toBe(202);
    customerId = created.body.data.id;
    const wallet = await api.call(a.apiKey, "/v1/wallets", {
      method: "POST",
      idempotencyKey: "w-ada",
      json: { customer_id: customerId, label: "main" },
    });
    expect(wallet.status, wallet.text).toBeLessThan(300);
    // 55 rows of one action: more than the audit page's 50, so "Older" has a second page.
    await recordAuditRows(api.db, { count: 55, action: "test.browsed", prefix: "row", merchantOf: () => a.merchantId });
  });

  itSignedIn(
    "lists the merchant's events, filters them by type, opens an event's data and its object",
    "owner@a.example",
    async ({ page }) => {
      await side.openFromNav(page, "Events");
      const table = page.getByRole("table", { name: /events, newest first/ });
      await table.getByText("wallet.created", { exact: true }).waitFor();
      await side.shotAndCheckAtBothSizes(page, "events");

      await page.getByLabel("Type", { exact: true }).selectOption("customer.created");
      await expect.poll(() => table.getByText("wallet.created", { exact: true }).count()).toBe(0);
      await table.getByText("customer.created", { exact: true }).first().waitFor();
      await table.locator("summary").first().click();
      await page.getByText(`"object_id": "${customerId}"`).first().waitFor();
      await side.expectAccessibleAtBothSizes(page);

      await page.getByLabel("Type", { exact: true }).selectOption("deposit.confirmed");
      await page.getByText("No events match these filters.").waitFor();
      await page.getByLabel("Type", { exact: true }).selectOption("");
      await page.getByLabel("Object id").fill(customerId);
      await table.getByText("customer.created", { exact: true }).first().waitFor();
      await table
        .getByRole("link", { name: `customer ${customerId.slice(0, 8)}` })
        .first()
        .click();
      await page.waitForURL(`**/customers/${customerId}`);

      // Another merchant's events: refused inside the app.
      await page.goto(`${dashboard.url}/dashboard/merchants/${b.merchantId}/events`);
      await page.getByRole("heading", { name: "Merchant not found" }).waitFor();
      // The audit log is the operator's: a merchant user gets no page (and the route a 403).
      await page.goto(`${dashboard.url}/dashboard/operator/audit-log`);
      await page.getByRole("heading", { name: "Page not found" }).waitFor();
      expect(await side.fetchInPage(page, "GET", "/dashboard/api/operator/audit-log", false)).toBe(403);
    },
  );

  itSignedIn(
    "shows the operator the audit log, filtered by action, and walks to older rows",
    { email: "admin@example.com", landing: OPERATOR_LANDING },
    async ({ page }) => {
      await side.openFromNav(page, "Audit log");
      await page.getByText("dashboard_session.signed_in").first().waitFor();
      await side.shotAndCheckAtBothSizes(page, "audit-log");

      await page.getByLabel("Action", { exact: true }).fill("test.browsed");
      const rows = page.locator("tr[data-audit]");
      await page.getByText("row-54").waitFor();
      await expect.poll(() => rows.count()).toBe(50);
      await page.getByRole("button", { name: "Older" }).click();
      await page.getByText("merchant row-0", { exact: true }).waitFor();
      await expect.poll(() => rows.count()).toBe(5);
      expect(await page.getByRole("button", { name: "Older" }).isDisabled()).toBe(true);
      await page.getByRole("button", { name: "Newer" }).click();
      await expect.poll(() => rows.count()).toBe(50);
      await page.locator("tr[data-audit] summary").first().click();
      await page.getByText(`"merchant_id": "${a.merchantId}"`).first().waitFor();
      await side.expectAccessibleAtBothSizes(page);

      await page.getByLabel("Action", { exact: true }).fill("nothing.like.this");
      await page.getByText("No audit records match these filters.").waitFor();
    },
  );
});
