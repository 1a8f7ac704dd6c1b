import { STATEMENT_CSV_COLUMNS } from "@mp/providers";
import { beforeAll, describe, expect, it } from "vitest";
import { merchantWithRoleUsers } from "./support/dashboard-client.ts";
import { useServedDashboard } from "./support/use-dashboard-site.ts";

/**
 * The bank suspense from the dashboard: an imported line that matched no account says why, and the
 * admin returns it with a reason (audited, out of the unmatched list) or assigns it (an unknown
 * account is 404); a line no longer unmatched is 409; merchant roles get 403.
 */
describe("dashboard bank suspense routes", () => {
  const { api, dashboard } = useServedDashboard();

  beforeAll(async () => {
    await merchantWithRoleUsers(api, ["owner"], { admin: true });
  }, 120_000);

  it("says why a line did not match, returns it with a reason, and refuses what it cannot do", async () => {
    const admin = await dashboard.signedIn("admin@example.com");
    const csv = [
      STATEMENT_CSV_COLUMNS.join(","),
      "2026-11-02,US000111222,CREDIT,250.10,USD,BANKREF-1,INV-7,ACME Corp",
      "2026-11-02,US000111222,CREDIT,10.00,EUR,BANKREF-2,INV-8,ACME Corp",
    ].join("\n");
    const imported = await admin.call("POST", "/finance/bank-statements?file_name=nov.csv", { text: `${csv}\n` });
    expect(imported.status, imported.text).toBe(201);
    const lines = imported.body.unmatched_lines as Array<{ id: string; currency: string; reason: string }>;
    const usd = lines.find((l) => l.currency === "USD");
    const eur = lines.find((l) => l.currency === "EUR");
    expect(usd?.reason).toBe("no virtual account has the number US000111222");
    expect(eur?.reason).toMatch(/currency EUR/);

    const owner = await dashboard.signedIn("owner@a.example");
    expect((await owner.call("POST", `/finance/bank-lines/${usd?.id}/return`, { json: { reason: "x" } })).status).toBe(
      403,
    );
    const unknownAccount = await admin.call("POST", `/finance/bank-lines/${usd?.id}/assign`, {
      json: { virtual_account_id: "00000000-0000-4000-8000-000000000000" },
    });
    expect(unknownAccount.status).toBe(404);
    const both = await admin.call("POST", `/finance/bank-lines/${usd?.id}/assign`, {
      json: { virtual_account_id: "00000000-0000-4000-8000-000000000000", intent_id: "x" },
    });
    expect(both.status).toBe(400);
    expect((await admin.call("POST", `/finance/bank-lines/${eur?.id}/return`, { json: { reason: " " } })).status).toBe(
      400,
    );
    const returned = await admin.call("POST", `/finance/bank-lines/${eur?.id}/return`, {
      json: { reason: "EUR: sent back to the payer" },
    });
    expect(returned.status, returned.text).toBe(200);
    expect(returned.body).toMatchObject({ id: eur?.id, status: "RETURNED", reason: "EUR: sent back to the payer" });
    expect(
      (await admin.call("POST", `/finance/bank-lines/${eur?.id}/return`, { json: { reason: "again" } })).status,
    ).toBe(409);
    expect(
      (
        await admin.call("POST", "/finance/bank-lines/00000000-0000-4000-8000-000000000000/return", {
          json: { reason: "x" },
        })
      ).status,
    ).toBe(404);
    const bank = await admin.call("GET", "/finance/reconcile/bank");
    expect(bank.body.unmatched.map((l: { id: string }) => l.id)).toEqual([usd?.id]);
    const audit = await api.db.query<{ actor: string }>(
      "SELECT actor FROM operator_audit_log WHERE action = 'bank.return' AND object_id = $1",
      [eur?.id],
    );
    expect(audit.rows).toEqual([{ actor: "dashboard:admin@example.com" }]);
  });
});
