import { describe, expect, it } from "vitest";
import { useTestDatabase } from "../../../test/support/test-database.ts";
import { checkLedger, registeredLedgerChecks, registerLedgerCheck } from "../src/index.ts";

const t = useTestDatabase();

describe("registerLedgerCheck", () => {
  it("adds a domain's problems to checkLedger's; the same name again replaces the check", async () => {
    expect(await checkLedger(t.db)).toMatchObject({ ok: true, problems: [] });
    registerLedgerCheck("widgets", async (q) => {
      const n = await q.query<{ n: number }>("SELECT 1 AS n");
      return [`widget ${n.rows[0]?.n} has no entry`];
    });
    expect(await checkLedger(t.db)).toMatchObject({ ok: false, problems: ["widget 1 has no entry"] });
    registerLedgerCheck("widgets", async () => []);
    expect(registeredLedgerChecks()).toEqual(["widgets"]);
    expect(await checkLedger(t.db)).toMatchObject({ ok: true, problems: [] });
  });
});
