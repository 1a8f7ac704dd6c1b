import { randomUUID } from "node:crypto";
import { describe, expect } from "vitest";
import { merchantWithRoleUsers } from "../../packages/dashboard/test/support/dashboard-client.ts";
import { tier2Customer } from "../api/verification-fixtures.ts";
import type { TestMerchant } from "../support/api-harness.ts";
import { OPERATOR_LANDING } from "./browser-support.ts";
import { useChromiumDashboard } from "./use-dashboard-browser.ts";

/**
 * The virtual accounts, KYC review and webhook tools pages in Chromium against the dashboard
 * router in this process (the API harness with its workers: the sandbox KYC verifies, the sandbox
 * bank opens accounts): the customer's account is listed on both pages, an approval is asked twice
 * before it is made, a secret rotation shows the new secret once; axe finds nothing serious at
 * either size.
 */
describe.skipIf(!process.env.DATABASE_URL)("dashboard records pages in Chromium", () => {
  const { api, side, itSignedIn, setUp } = useChromiumDashboard("records pages", {
    workers: true,
    overrides: { resolveWebhookHost: async () => [{ address: "93.184.216.34", family: 4 }] },
  });
  let merchant: TestMerchant;
  let customerId: string;
  let accountId: string;
  let submissionId: string;

  setUp(async () => {
    merchant = await merchantWithRoleUsers(api, ["owner"], { admin: true });
    customerId = await tier2Customer(api, merchant);
    const opened = await api.call(merchant.apiKey, "/v1/virtual-accounts", {
      method: "POST",
      idempotencyKey: "va-1",
      json: { customer_id: customerId, currency: "USD" },
    });
    expect(opened.status, opened.text).toBe(201);
    accountId = opened.body.data.id;
    const endpoint = await api.call(merchant.apiKey, "/v1/webhook-endpoints", {
      method: "POST",
      idempotencyKey: "we-1",
      json: { url: "https://receiver.example/hooks", enabled_events: ["*"] },
    });
    expect(endpoint.status, endpoint.text).toBe(201);
    // A manual review waiting for the operator, of the customer's real (sealed) Tier 1 submission.
    const submission = await api.db.query<{ id: string }>(
      "SELECT id FROM verification_submissions WHERE customer_id = $1 AND tier = 'TIER_1'",
      [customerId],
    );
    submissionId = submission.rows[0]?.id ?? "";
    await api.db.query(
      `INSERT INTO kyc_manual_reviews (review_id, submission_id, profile_id, customer_type, tier, submitted_at)
       VALUES ($1, $2, 'profile-1', 'INDIVIDUAL', 'TIER_1', now())`,
      [`review-${randomUUID()}`, submissionId],
    );
  });

  itSignedIn(
    "lists the customer's virtual account on the accounts page and on the customer's page",
    "owner@a.example",
    async ({ page }) => {
      await page.getByRole("navigation", { name: "Dashboard" }).getByRole("link", { name: "Virtual accounts" }).click();
      await page.getByRole("heading", { name: "Virtual accounts", level: 1 }).waitFor();
      const row = page.locator(`tr[data-virtual-account="${accountId}"]`);
      await row.getByRole("link", { name: "Test Person" }).waitFor();
      await side.shotAndCheckAtBothSizes(page, "virtual-accounts");
      await row.getByRole("link", { name: "Test Person" }).click();
      await page.getByRole("heading", { name: "Virtual accounts", level: 2 }).waitFor();
      await page.locator(`tr[data-virtual-account="${accountId}"]`).waitFor();
      await side.shotAndCheckAtBothSizes(page, "customer-detail");
      await page.locator(`tr[data-virtual-account="${accountId}"]`).getByRole("link").first().click();
      await page.getByRole("heading", { name: "Bank deposits" }).waitFor();
      await side.shotAndCheckAtBothSizes(page, "virtual-account-detail");
    },
  );

  itSignedIn(
    "rotates a webhook secret after a confirmation and shows the new one once",
    "owner@a.example",
    async ({ page }) => {
      await side.openAt(page, `/merchants/${merchant.merchantId}/webhooks`, "Webhooks");
      await page.getByText("Success rate (7 days)").waitFor();
      await side.expectAccessibleAtBothSizes(page);
      await page.getByRole("button", { name: /^Rotate secret…/ }).click();
      await page.getByRole("button", { name: "Rotate secret", exact: true }).click();
      await page.getByRole("heading", { name: "New signing secret" }).waitFor();
      expect(await page.getByRole("textbox", { name: "New signing secret" }).inputValue()).toMatch(/^whsec_/);
      await side.shotAndCheckAtBothSizes(page, "webhook-rotated");
    },
  );

  itSignedIn(
    "shows the reviewer whose submission it is and its data, and asks before approving",
    { email: "admin@example.com", landing: OPERATOR_LANDING },
    async ({ page }) => {
      await side.openAt(page, "/operator/kyc", "KYC reviews");
      await page.getByRole("link", { name: "Test Person" }).waitFor();
      await page.getByRole("button", { name: "Show submitted data" }).click();
      await page.getByText("1985-12-10").waitFor();
      const status = async () =>
        (
          await api.db.query<{ status: string }>("SELECT status FROM kyc_manual_reviews WHERE submission_id = $1", [
            submissionId,
          ])
        ).rows[0]?.status;
      await page.getByRole("button", { name: /^Approve…/ }).click();
      await page
        .getByText(/The decision is final/)
        .first()
        .waitFor();
      await side.shotAndCheckAtBothSizes(page, "kyc-confirm");
      expect(await status()).toBe("PENDING");
      await page.getByRole("button", { name: "Confirm approval" }).click();
      await page.getByText(/tier 1 submission: approved/i).waitFor();
      expect(await status()).toBe("APPROVED");
    },
  );
});
