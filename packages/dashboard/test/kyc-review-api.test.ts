import { createManualKycProvider } from "@mp/providers";
import { beforeAll, describe, expect, it } from "vitest";
import { createCustomer, individualTier1, submit } from "../../../test/api/verification-fixtures.ts";
import { eventually, useApiHarness } from "../../../test/support/api-harness.ts";
import { createRoleUsers, dashboardRouterOf } from "./support/dashboard-client.ts";
import { useDashboardSite } from "./support/use-dashboard-site.ts";

const ADMIN = "admin@example.com";

/**
 * The KYC review queue as the reviewer needs it: each review names its merchant and customer, and
 * the submitted data is opened (decrypted) for the admin alone, each opening in the audit log.
 */
describe("dashboard KYC review queue: whose, and what was submitted", () => {
  const { api, merchant } = useApiHarness({
    workers: true,
    overrides: (db) => ({ kyc: createManualKycProvider({ db }) }),
  });
  const dashboard = useDashboardSite(() => dashboardRouterOf(api));
  let customerId: string;
  let submissionId: string;

  beforeAll(async () => {
    await createRoleUsers(api.db, merchant.merchantId);
    customerId = await createCustomer(api, merchant);
    const res = await submit(api, merchant, customerId, individualTier1({ last_name: "Lovelace" }));
    expect(res.status).toBe(202);
    submissionId = res.body.data.id;
  });

  it("lists each review with its merchant and customer", async () => {
    const admin = await dashboard.signedIn(ADMIN);
    const item = await eventually(async () => {
      const queue = await admin.call("GET", "/operator/kyc-reviews");
      return queue.body.items.find((r: { submission_id: string }) => r.submission_id === submissionId);
    });
    const name = (
      await api.db.query<{ name: string }>("SELECT name FROM merchants WHERE id = $1", [merchant.merchantId])
    ).rows[0]?.name;
    expect(item).toMatchObject({
      status: "PENDING",
      tier: "TIER_1",
      merchant: { id: merchant.merchantId, name },
      customer: { id: customerId, name: "Test Person" },
    });
  });

  it("opens the submitted data for the admin only, and audits each opening", async () => {
    const path = `/operator/kyc-reviews/${submissionId}/submission`;
    for (const email of ["owner@a.example", "viewer@a.example"]) {
      expect((await (await dashboard.signedIn(email)).call("GET", path)).status, email).toBe(403);
    }
    expect((await dashboard.client().call("GET", path)).status).toBe(401);
    const admin = await dashboard.signedIn(ADMIN);
    const opened = await admin.call("GET", path);
    expect(opened.status).toBe(200);
    expect(opened.headers.get("cache-control")).toBe("no-store");
    expect(opened.body).toMatchObject({
      submission_id: submissionId,
      customer_id: customerId,
      tier: "TIER_1",
      data: { last_name: "Lovelace", date_of_birth: "1985-12-10", residential_address: { city: "London" } },
    });
    await admin.call("GET", path);
    const audit = await api.db.query<{ actor: string; action: string }>(
      "SELECT actor, action FROM operator_audit_log WHERE object_id = $1 ORDER BY id",
      [submissionId],
    );
    expect(audit.rows).toEqual([
      { actor: `dashboard:${ADMIN}`, action: "kyc_submission.viewed" },
      { actor: `dashboard:${ADMIN}`, action: "kyc_submission.viewed" },
    ]);
    const missing = await admin.call("GET", "/operator/kyc-reviews/00000000-0000-4000-8000-000000000000/submission");
    expect(missing.status).toBe(404);
  });
});
