import { describe, expect } from "vitest";
import { createUsers } from "../../packages/dashboard/test/support/dashboard-client.ts";
import type { TestMerchant } from "../support/api-harness.ts";
import { useChromiumDashboard } from "./use-dashboard-browser.ts";

/**
 * The team page as its owner uses it in Chromium: a role changed, an invite sent again (a new link
 * shown once), a user removed after a confirmation, the last owner's demotion refused with the
 * reason inside the page; a viewer sees no actions; axe finds nothing serious at either size.
 */
describe.skipIf(!process.env.DATABASE_URL)("dashboard team page in Chromium", () => {
  const { api, side, itSignedIn, setUp } = useChromiumDashboard("team");
  let merchant: TestMerchant;
  const roleOf = async (email: string) =>
    (await api.db.query<{ role: string }>("SELECT role FROM dashboard_users WHERE email = $1", [email])).rows[0]?.role;

  setUp(async () => {
    merchant = await api.merchant("sandbox");
    await createUsers(api.db, [
      ["owner@a.example", "owner", merchant.merchantId],
      ["viewer@a.example", "viewer", merchant.merchantId],
      ["dev@a.example", "developer", merchant.merchantId],
    ]);
  });

  itSignedIn(
    "changes a role, resends an invite, removes a user and keeps the last owner",
    "owner@a.example",
    async ({ context, page }) => {
      await page.getByRole("navigation", { name: "Dashboard" }).getByRole("link", { name: "Team" }).click();
      await page.getByRole("heading", { name: "Team", level: 1 }).waitFor();
      await page.getByLabel("Role of viewer@a.example").waitFor();
      await side.expectAccessibleAtBothSizes(page);

      await page.getByLabel("Role of viewer@a.example").selectOption("finance");
      await page.getByRole("button", { name: "Change role of viewer@a.example" }).click();
      await expect.poll(() => roleOf("viewer@a.example")).toBe("finance");

      // The last owner: refused, with the reason, inside the page.
      await page.getByLabel("Role of owner@a.example").selectOption("viewer");
      await page.getByRole("button", { name: "Change role of owner@a.example" }).click();
      await page.getByText(/keeps at least one owner/).waitFor();
      expect(await roleOf("owner@a.example")).toBe("owner");

      await page.getByLabel("Email").fill("new@a.example");
      await page.getByRole("button", { name: "Invite", exact: true }).click();
      const first = await page.getByRole("textbox", { name: "Invitation link" }).inputValue();
      await page.getByRole("button", { name: "I have stored it" }).click();
      await page.getByRole("button", { name: "Resend invite to new@a.example" }).click();
      await expect.poll(() => page.getByRole("textbox", { name: "Invitation link" }).inputValue()).not.toBe(first);
      await side.shotAndCheckAtBothSizes(page, "team-invited");

      await page.getByRole("button", { name: "Remove dev@a.example" }).click();
      await page.getByRole("button", { name: "Remove user" }).click();
      await expect.poll(() => page.getByText("dev@a.example").count()).toBe(0);
      await context.close();

      // The viewer, now finance: reads the team, has no actions.
      const viewer = await side.signedInPage("viewer@a.example");
      await side.openAt(viewer.page, `/merchants/${merchant.merchantId}/team`, "Team");
      await viewer.page.getByText("owner@a.example").waitFor();
      expect(await viewer.page.getByRole("button", { name: /^Remove/ }).count()).toBe(0);
      await viewer.context.close();
    },
  );
});
