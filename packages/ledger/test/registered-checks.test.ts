import { describe, expect, it, vi } from "vitest";
import { useTestDatabase } from "../../../test/support/test-database.ts";

const t = useTestDatabase();

describe("registerLedgerCheck", () => {
  it("adds a domain's problems to checkLedger's; the same name again replaces the check", async () => {
    // A fresh copy of the package: test files share a worker's modules (isolate: false), and another
    // file may have registered checks in the copy it loaded.
    vi.resetModules();
    const { checkLedger, registeredLedgerChecks, registerLedgerCheck } = await import("../src/index.ts");
    expect(registeredLedgerChecks()).toEqual([]);
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
