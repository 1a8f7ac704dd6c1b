import { transfersReport } from "@mp/transfers";
import { beforeAll, describe, expect, it } from "vitest";
import { startTransfersApi } from "../../../test/api/transfers-support.ts";
import type { TestMerchant } from "../../../test/support/api-harness.ts";
import { useStarted } from "../../../test/support/use-started.ts";
import { createRoleUsers, dashboardRouterOf } from "./support/dashboard-client.ts";
import { useDashboardSite } from "./support/use-dashboard-site.ts";

const ADMIN = "admin@example.com";

describe("dashboard transfers report (issue 16): the CLI's `payments transfers report --json`", () => {
  const t = useStarted("the transfers API", startTransfersApi, (started) => started.stop());
  const dashboard = useDashboardSite(() => dashboardRouterOf(t.api));
  let merchant: TestMerchant;
  let other: TestMerchant;
  let from: Date;
  let to: Date;

  /** Two transfers of `m` (100.00 and 40.00 USD to USDC on Base), waiting for their funds. */
  const twoTransfers = async (m: TestMerchant) => {
    const { customerId } = await t.bankCustomer(m);
    for (const amount of ["100.00", "40.00"]) {
      const quote = await t.quote(m, customerId, { source_amount: amount });
      expect((await t.transfer(m, quote.id)).status).toBe(201);
    }
  };

  beforeAll(async () => {
    merchant = await t.api.merchant();
    other = await t.api.merchant();
    await createRoleUsers(t.api.db, merchant.merchantId);
    from = new Date(Date.now() - 1000);
    await twoTransfers(merchant);
    await twoTransfers(other);
    to = new Date(Date.now() + 60_000);
  }, 120_000);

  it("answers the admin the platform's report, exactly transfersReport's for the same range", async () => {
    const admin = await dashboard.signedIn(ADMIN);
    const range = `from=${from.toISOString()}&to=${to.toISOString()}`;
    const all = await admin.call("GET", `/finance/transfers-report?${range}`);
    expect(all.status).toBe(200);
    expect(all.body).toEqual(JSON.parse(JSON.stringify(await transfersReport(t.api.db, { from, to }))));
    expect(all.body.count).toBe(4);
    const totals = all.body.states.flatMap((s: { totals: Array<Record<string, unknown>> }) => s.totals);
    expect(totals).toEqual([
      expect.objectContaining({ source_currency: "USD", destination_currency: "USDC", count: 4 }),
    ]);
    expect(totals[0].source_amount).toBe("280.00");
    // Either end open, as the CLI takes it; a window before the transfers is empty.
    expect((await admin.call("GET", "/finance/transfers-report")).body.count).toBe(4);
    expect((await admin.call("GET", "/finance/transfers-report?to=2020-01-01")).body.count).toBe(0);
    const bad = await admin.call("GET", "/finance/transfers-report?from=yesterday");
    expect(bad.status).toBe(400);
    expect(bad.body.error).toBe("validation_error");
    // The admin may read any merchant's.
    const others = await admin.call("GET", `/merchants/${other.merchantId}/finance/transfers-report?${range}`);
    expect(others.body).toMatchObject({ merchant_id: other.merchantId, count: 2 });
  });

  it("answers a merchant's owner and finance people their own report only; viewer and developer are refused", async () => {
    const range = `from=${from.toISOString()}&to=${to.toISOString()}`;
    const own = `/merchants/${merchant.merchantId}/finance/transfers-report?${range}`;
    const expected = JSON.parse(
      JSON.stringify(await transfersReport(t.api.db, { from, to, merchantId: merchant.merchantId })),
    );
    expect(expected.count).toBe(2);
    for (const email of ["owner@a.example", "finance@a.example"]) {
      const client = await dashboard.signedIn(email);
      const answer = await client.call("GET", own);
      expect(answer.status, email).toBe(200);
      expect(answer.body).toEqual(expected);
      expect((await client.call("GET", `/merchants/${other.merchantId}/finance/transfers-report`)).status).toBe(404);
      expect((await client.call("GET", "/finance/transfers-report")).status).toBe(403);
      expect((await client.call("GET", `/merchants/${merchant.merchantId}/finance/transfers-report?to=x`)).status).toBe(
        400,
      );
    }
    for (const email of ["viewer@a.example", "developer@a.example"]) {
      const client = await dashboard.signedIn(email);
      const answer = await client.call("GET", own);
      expect(answer.status, email).toBe(403);
      expect(answer.body.error).toBe("forbidden");
    }
    expect((await dashboard.client().call("GET", own)).status).toBe(401);
  });
});
