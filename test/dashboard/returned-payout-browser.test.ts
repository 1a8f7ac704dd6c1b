import { createSandboxBankingProvider } from "@mp/providers";
import { executeTransfersOnce } from "@mp/transfers";
import { describe, expect } from "vitest";
import { createUsers } from "../../packages/dashboard/test/support/dashboard-client.ts";
import { transferTreasury } from "../../services/payments/src/transfer-treasury.ts";
import { payoutsOnNoNode } from "../api/chains-on-no-node.ts";
import { usBank } from "../api/transfers-bank-support.ts";
import { type TransfersClient, transfersClient } from "../api/transfers-support.ts";
import { eventually, type TestMerchant } from "../support/api-harness.ts";
import { useChromiumDashboard } from "./use-dashboard-browser.ts";

/**
 * A bank payout the payee's bank returned after it completed (issue 29): the transfer is REFUNDED
 * and its page says so as a return, with the bank's reason ("Returned: ..."), not as a failure to
 * pay. The sandbox bank returns a payout to an account ending in 0003 (R03) once completed.
 */
describe.skipIf(!process.env.DATABASE_URL)("a returned bank payout on the dashboard, in Chromium", () => {
  const { api, side, itSignedIn, setUp } = useChromiumDashboard("returned payout", payoutsOnNoNode());
  let merchant: TestMerchant;
  let t: TransfersClient;
  let transferId: string;

  setUp(async () => {
    merchant = await api.merchant("sandbox");
    await createUsers(api.db, [["finance@a.example", "finance", merchant.merchantId]]);
    t = await transfersClient(api);
    const customer = await t.bankCustomer(merchant);
    const credited = await t.credit(merchant, customer.virtualAccountId, "150.00");
    expect(credited.status, credited.text).toBe(201);
    await eventually(async () => (Number((await t.balance(merchant)).available) >= 100 ? true : undefined));
    const quote = await t.quote(merchant, customer.customerId, {
      source: { method: "BALANCE" },
      destination: usBank("5550003"),
    });
    const created = await t.transfer(merchant, quote.id);
    expect(created.body.data.status, created.text).toBe("FUNDED");
    transferId = created.body.data.id as string;
    // The sandbox answering at once: the payout completes and comes back (R03) at the first answer.
    const bank = { banking: createSandboxBankingProvider({ payoutDelayMs: 0 }), keyring: api.deps.encryption };
    await eventually(async () => {
      await executeTransfersOnce(api.db, transferTreasury, { bank });
      const res = await t.call(merchant, `/v1/transfers/${transferId}`);
      return res.body.data.status === "REFUNDED" ? true : undefined;
    }, 30_000);
  });

  itSignedIn(
    "shows the returned payout's transfer as Refunded, with 'Returned:' and the bank's reason",
    "finance@a.example",
    async ({ page }) => {
      await side.openFromNav(page, "Transfers");
      const row = page.locator(`tr[data-transfer="${transferId}"]`);
      await row.waitFor();
      await row.locator(".state").getByText("Refunded").waitFor();
      await row.locator("a.row-link").click();
      await page.getByRole("heading", { name: /^Transfer of/, level: 1 }).waitFor();
      // A return, told as information (role status), not as a failure (role alert).
      const notice = page.getByRole("status").filter({ hasText: /^Returned: / });
      await notice.waitFor();
      expect(await notice.textContent()).toBe(
        "Returned: the payee's bank returned the payout after it completed: R03 No account/unable to locate account: the payee's bank returned the payout",
      );
      expect(await page.getByRole("alert").filter({ hasText: "Failed:" }).count()).toBe(0);
      await side.shotAndCheckAtBothSizes(page, "returned-payout");
    },
  );
});
