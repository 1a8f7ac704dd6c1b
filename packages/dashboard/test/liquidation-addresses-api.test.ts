import { beforeAll, describe, expect, it } from "vitest";
import { PAYEE, useTransfersApi } from "../../../test/api/transfers-support.ts";
import { drainerOf, liquidationSteps } from "../../../test/liquidation/drain-support.ts";
import type { TestMerchant } from "../../../test/support/api-harness.ts";
import { createUsers, dashboardRouterOf } from "./support/dashboard-client.ts";
import { expectHiddenFromOtherMerchant } from "./support/expect-get-status.ts";
import { useDashboardSite } from "./support/use-dashboard-site.ts";

const USD = 1_000_000n;

/**
 * The liquidation addresses page's routes: the /v1 routes through the session (list, one address,
 * its drains), the destination masked; another merchant's address, or another merchant's path, is 404;
 * the operator's failing drains of every merchant, for the admin alone.
 */
describe("dashboard liquidation addresses routes", () => {
  const { t, a, customer } = useTransfersApi();
  const dashboard = useDashboardSite(() => dashboardRouterOf(t.api));
  let b: TestMerchant;
  let addressId: string;
  let depositId: string;

  beforeAll(async () => {
    b = await t.api.merchant("sandbox");
    await createUsers(t.api.db, [
      ["viewer@liq-a.example", "viewer", a.merchantId],
      ["owner@liq-b.example", "owner", b.merchantId],
      ["admin@liq.example", "admin", undefined],
    ]);
    const steps = liquidationSteps(t, a, customer.customerId);
    const address = await steps.create({ type: "CRYPTO_ADDRESS", network: "BASE", asset: "USDC", address: PAYEE });
    addressId = address.id;
    depositId = await steps.deposit(address, 25n * USD);
    await steps.confirm();
    expect(await drainerOf(t.api)()).toMatchObject({ submitted: 1 });
  }, 120_000);

  it("lists the merchant's addresses, one address and its drains, as /v1 answers them", async () => {
    const viewer = await dashboard.signedIn("viewer@liq-a.example");
    const list = await viewer.call("GET", `/merchants/${a.merchantId}/liquidation-addresses`);
    expect(list.status, list.text).toBe(200);
    expect(list.body.items).toMatchObject([
      { id: addressId, network: "BASE", asset: "USDC", status: "active", destination: { address: PAYEE } },
    ]);
    const one = await viewer.call("GET", `/merchants/${a.merchantId}/liquidation-addresses/${addressId}`);
    expect(one.status).toBe(200);
    expect(one.body.id).toBe(addressId);
    const drains = await viewer.call("GET", `/merchants/${a.merchantId}/liquidation-addresses/${addressId}/drains`);
    expect(drains.status).toBe(200);
    expect(drains.body.items).toMatchObject([
      { deposit_id: depositId, state: "payment_submitted", deposit: { amount: "25", asset: "USDC" } },
    ]);
    const bad = await viewer.call(
      "GET",
      `/merchants/${a.merchantId}/liquidation-addresses/${addressId}/drains?state=x`,
    );
    expect(bad.status).toBe(400);
    expect(bad.body.message).toContain("state");
  });

  it("answers 404 for another merchant's address, and for another merchant's path", async () => {
    const owner = await dashboard.signedIn("owner@liq-b.example");
    const merchants = { owner: a.merchantId, viewer: b.merchantId };
    await expectHiddenFromOtherMerchant(owner, merchants, `liquidation-addresses/${addressId}`, ["drains"]);
    const own = await owner.call("GET", `/merchants/${b.merchantId}/liquidation-addresses`);
    expect(own.body.items).toEqual([]);
  });

  it("shows the admin the failing drains of every merchant, and refuses a merchant's users", async () => {
    // Above a 50 USD travel rule threshold with no beneficiary: no payout can be made, the drain fails.
    const steps = liquidationSteps(t, a, customer.customerId);
    const address = await steps.create({ type: "CRYPTO_ADDRESS", network: "BASE", asset: "USDC", address: PAYEE });
    const refused = await steps.deposit(address, 80n * USD);
    await steps.confirm();
    expect(await drainerOf(t.api, { travelRuleThresholdUsdMicros: 50n * USD })()).toMatchObject({ failed: 1 });

    const admin = await dashboard.signedIn("admin@liq.example");
    const failing = await admin.call("GET", "/operator/liquidation-drains/failing");
    expect(failing.status, failing.text).toBe(200);
    expect(failing.headers.get("cache-control")).toBe("no-store");
    expect(failing.body.items).toMatchObject([
      {
        deposit_id: refused,
        merchant_id: a.merchantId,
        liquidation_address_id: address.id,
        state: "failed",
        failure_reason: "beneficiary_required",
        attempts: 1,
      },
    ]);
    // The paid drain of the first address is not failing.
    expect(failing.body.items.map((d: { deposit_id: string }) => d.deposit_id)).not.toContain(depositId);
    for (const email of ["viewer@liq-a.example", "owner@liq-b.example"]) {
      const user = await dashboard.signedIn(email);
      expect((await user.call("GET", "/operator/liquidation-drains/failing")).status, email).toBe(403);
    }
  });
});
