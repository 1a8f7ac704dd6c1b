import { describe, expect } from "vitest";
import { createUser } from "../../packages/dashboard/src/index.ts";
import { dashboardRouterOf } from "../../packages/dashboard/test/support/dashboard-client.ts";
import { useDashboardSite } from "../../packages/dashboard/test/support/use-dashboard-site.ts";
import { PAYEE, useTransfersApi } from "../api/transfers-support.ts";
import { drainerOf, liquidationSteps } from "../liquidation/drain-support.ts";
import { OPERATOR_LANDING, PASSWORD } from "./browser-support.ts";
import { useDashboardBrowser } from "./use-dashboard-browser.ts";

const USD = 1_000_000n;

/**
 * The liquidation addresses pages in Chromium against the dashboard router in this process: the
 * merchant's address is listed from the nav, opens with its drain (state, amounts, fee); axe finds
 * nothing serious at either size; the admin's failing drains page lists a failed drain.
 */
describe.skipIf(!process.env.DATABASE_URL)("dashboard liquidation addresses in Chromium", () => {
  const { t, a, customer } = useTransfersApi();
  const dashboard = useDashboardSite(() => dashboardRouterOf(t.api));
  const { side, itSignedIn, setUp } = useDashboardBrowser("liquidation pages", () => dashboard.url);
  let addressId: string;
  let drainId: string;
  let failedDrainId: string;

  setUp(async () => {
    await createUser(t.api.db, {
      email: "owner@liq.example",
      role: "owner",
      merchantId: a.merchantId,
      password: PASSWORD,
      actor: "test",
    });
    const steps = liquidationSteps(t, a, customer.customerId);
    const address = await steps.create({ type: "CRYPTO_ADDRESS", network: "BASE", asset: "USDC", address: PAYEE });
    addressId = address.id;
    await steps.deposit(address, 25n * USD);
    await steps.confirm();
    expect(await drainerOf(t.api)()).toMatchObject({ submitted: 1 });
    drainId = (await steps.drains(addressId))[0]?.id ?? "";
    // Above a 50 USD travel rule threshold with no beneficiary: the drain fails beneficiary_required.
    const failing = await steps.create({ type: "CRYPTO_ADDRESS", network: "BASE", asset: "USDC", address: PAYEE });
    await steps.deposit(failing, 80n * USD);
    await steps.confirm();
    expect(await drainerOf(t.api, { travelRuleThresholdUsdMicros: 50n * USD })()).toMatchObject({ failed: 1 });
    failedDrainId = (await steps.drains(failing.id))[0]?.id ?? "";
    await createUser(t.api.db, { email: "admin@liq.example", role: "admin", password: PASSWORD, actor: "test" });
  });

  itSignedIn("lists the address from the nav and shows its drain", "owner@liq.example", async ({ page }) => {
    await page
      .getByRole("navigation", { name: "Dashboard" })
      .getByRole("link", { name: "Liquidation addresses" })
      .click();
    await page.getByRole("heading", { name: "Liquidation addresses", level: 1 }).waitFor();
    const row = page.locator(`tr[data-liquidation-address="${addressId}"]`);
    await row.waitFor();
    expect(await row.textContent()).toContain(PAYEE);
    await side.shotAndCheckAtBothSizes(page, "liquidation-addresses");
    await row.getByRole("link").first().click();
    await page.getByRole("heading", { name: "Drains", level: 2 }).waitFor();
    const drain = page.locator(`tr[data-drain="${drainId}"]`);
    await drain.getByText("Payout submitted", { exact: true }).waitFor();
    expect(await drain.locator('.money[data-asset="USDC"]').first().textContent()).toMatch(/25/);
    await page.getByRole("button", { name: /deposit address/i }).waitFor();
    await side.shotAndCheckAtBothSizes(page, "liquidation-address-detail");
  });

  itSignedIn(
    "shows the admin the failing drain with its reason",
    { email: "admin@liq.example", landing: OPERATOR_LANDING },
    async ({ page }) => {
      await page.getByRole("link", { name: "Failing drains" }).click();
      await page.getByRole("heading", { name: "Failing drains", level: 1 }).waitFor();
      const row = page.locator(`tr[data-drain="${failedDrainId}"]`);
      await row.getByText("the travel rule needs a beneficiary").waitFor();
      await row.getByText("Failed", { exact: true }).waitFor();
      expect(await page.locator(`tr[data-drain="${drainId}"]`).count()).toBe(0);
      await side.shotAndCheckAtBothSizes(page, "failing-drains");
    },
  );
});
