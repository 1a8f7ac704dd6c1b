import { beforeAll, describe, expect, it } from "vitest";
import { PAYEE, useTransfersApi } from "../../../test/api/transfers-support.ts";
import { nextKey } from "../../../test/api/verification-fixtures.ts";
import { createRoleUsers, dashboardRouterOf } from "./support/dashboard-client.ts";
import { useDashboardSite } from "./support/use-dashboard-site.ts";

/**
 * Issue 29 item 5: a transfer's travel rule data on the dashboard, for the platform's operator
 * (admin) only, decrypted for that answer and audited under `dashboard:<email>`; every merchant role
 * is refused (the merchant's own answers say only beneficiary_on_file).
 */
describe("dashboard: a transfer's beneficiary for operators only", () => {
  const { t, a, customer } = useTransfersApi();
  const dashboard = useDashboardSite(() => dashboardRouterOf(t.api));
  let transferId: string;
  const beneficiary = { type: "BUSINESS", name: "Acme", legal_name: "Acme Widgets GmbH", country: "DE" };

  beforeAll(async () => {
    await createRoleUsers(t.api.db, a.merchantId);
    const quote = await t.quote(a, customer.customerId, {
      destination: { type: "CRYPTO_ADDRESS", asset: "USDC", network: "BASE", address: PAYEE, beneficiary },
      source_amount: undefined,
      destination_amount: "4000",
    });
    const created = await t.transfer(a, quote.id, nextKey("transfer"));
    expect(created.status, created.text).toBe(201);
    transferId = created.body.data.id;
  });

  const path = () => `/operator/transfers/${transferId}/beneficiary`;

  it("shows the admin the beneficiary, audited; refuses every merchant role and the signed-out", async () => {
    expect((await dashboard.client().call("GET", path())).status).toBe(401);
    for (const email of ["owner@a.example", "finance@a.example", "viewer@a.example", "developer@a.example"]) {
      const refused = await (await dashboard.signedIn(email)).call("GET", path());
      expect(refused.status, email).toBe(403);
    }
    const admin = await dashboard.signedIn("admin@example.com");
    const shown = await admin.call("GET", path());
    expect(shown.status, JSON.stringify(shown.body)).toBe(200);
    expect(shown.body).toEqual({
      transfer_id: transferId,
      merchant_id: a.merchantId,
      destination_usd: "4000.00",
      beneficiary,
    });
    const audit = await t.api.db.query("SELECT actor, action FROM operator_audit_log WHERE object_id = $1", [
      transferId,
    ]);
    expect(audit.rows).toEqual([{ actor: "dashboard:admin@example.com", action: "transfer.beneficiary_viewed" }]);
    const unknown = await admin.call("GET", "/operator/transfers/00000000-0000-4000-8000-000000000000/beneficiary");
    expect(unknown.status).toBe(404);
    // The merchant's own view of the transfer says only that the data is on file.
    const own = await (await dashboard.signedIn("owner@a.example")).call(
      "GET",
      `/merchants/${a.merchantId}/transfers/${transferId}`,
    );
    expect(own.status).toBe(200);
    expect(own.body.destination.beneficiary_on_file).toBe(true);
    expect(JSON.stringify(own.body)).not.toContain("Acme Widgets");
  });
});
