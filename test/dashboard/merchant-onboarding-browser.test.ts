import { describe, expect } from "vitest";
import { createUsers } from "../../packages/dashboard/test/support/dashboard-client.ts";
import { OPERATOR_LANDING } from "./browser-support.ts";
import { useChromiumDashboard } from "./use-dashboard-browser.ts";

/**
 * The operator creates a merchant with its owner's email in Chromium: the first key and the owner's
 * invitation link are shown once, each with a copy button; the copied link, opened in another
 * browser, sets the owner's password and signs them in to that merchant's overview; axe finds
 * nothing serious at either size.
 */
describe.skipIf(!process.env.DATABASE_URL)("dashboard merchant onboarding in Chromium", () => {
  const { api, side, itSignedIn, setUp } = useChromiumDashboard("merchant onboarding");

  setUp(async () => {
    await createUsers(api.db, [["admin@example.com", "admin", undefined]]);
  });

  itSignedIn(
    "creates a merchant with its owner, whose copied link signs them in to that merchant",
    { email: "admin@example.com", landing: OPERATOR_LANDING },
    async ({ page }) => {
      // The old address of the merchants page leads to the one merchants page (issue 32).
      await side.openAt(page, "/operator/merchants", "Merchants");
      await expect.poll(() => new URL(page.url()).pathname).toBe("/dashboard/merchants");
      await page.getByLabel("Merchant name").fill("Corner Shop");
      await page.getByLabel("Owner's email (optional)").fill("founder@corner.example");
      await page.getByRole("button", { name: "Create merchant" }).click();
      await page.getByRole("heading", { name: "Owner invited" }).waitFor();
      // The key's heading has the focus (the first of the two values shown once).
      await expect.poll(() => page.evaluate("document.activeElement?.textContent")).toBe("Corner Shop created");
      await side.shotAndCheckAtBothSizes(page, "merchant-created");
      await page.getByRole("button", { name: "Copy Invitation link" }).click();
      const link = String(await page.evaluate("navigator.clipboard.readText()"));
      expect(link).toMatch(/\/dashboard\/set-password#token=[\w-]{43}$/);
      const merchantId = (await api.db.query<{ id: string }>("SELECT id FROM merchants WHERE name = 'Corner Shop'"))
        .rows[0]?.id;

      const owner = await side.newPage();
      await owner.page.goto(link);
      await owner.page.getByRole("heading", { name: "Choose your password" }).waitFor();
      await owner.page.getByLabel("New password").fill("a long founder password");
      await owner.page.getByLabel("Repeat the password").fill("a long founder password");
      await owner.page.getByRole("button", { name: "Set password" }).click();
      await owner.page.getByLabel("Email").waitFor();
      await side.signIn(owner.page, "founder@corner.example", "a long founder password");
      await owner.page.getByRole("heading", { name: "Overview" }).waitFor();
      expect(owner.page.url()).toContain(`/dashboard/merchants/${merchantId}/overview`);
      await owner.page.getByText("Owner", { exact: true }).waitFor();
      await owner.context.close();
    },
  );
});
