import { silentLogger } from "@mp/core";
import { describe, expect, it } from "vitest";
import { useTestDatabase } from "../../../test/support/test-database.ts";
import {
  createListScreeningProvider,
  refuseSanctionedDestination,
  SANDBOX_SANCTIONED_ADDRESSES,
} from "../src/index.ts";

const t = useTestDatabase();

describe("refuseSanctionedDestination", () => {
  it("writes the match and its audit row in one transaction: both, or neither when one fails", async () => {
    const screening = await createListScreeningProvider({ path: null, sandbox: true, logger: silentLogger() });
    const [magic] = SANDBOX_SANCTIONED_ADDRESSES;
    if (!magic) throw new Error("the sandbox's magic address");
    const refuse = (reference: string) =>
      refuseSanctionedDestination(t.db, screening, {
        context: "quote",
        chain: "BASE",
        address: magic,
        merchantId: null,
        reference,
        field: "destination.address",
      });
    const counts = async () =>
      (
        await t.db.query<{ matches: number; audits: number }>(
          `SELECT (SELECT count(*)::int FROM sanctions_matches) AS matches,
                  (SELECT count(*)::int FROM operator_audit_log WHERE object_type = 'sanctions_match') AS audits`,
        )
      ).rows[0];

    await expect(refuse("q-1")).rejects.toMatchObject({ code: "destination_sanctioned" });
    expect(await counts()).toEqual({ matches: 1, audits: 1 });

    // The audit log refuses the next row: the match must not be kept without it.
    await t.db.query(`CREATE FUNCTION refuse_audit() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN RAISE EXCEPTION 'audit log unavailable'; END $$`);
    await t.db.query(
      "CREATE TRIGGER refuse_audit BEFORE INSERT ON operator_audit_log FOR EACH ROW EXECUTE FUNCTION refuse_audit()",
    );
    try {
      await expect(refuse("q-2")).rejects.toThrow(/audit log unavailable/);
      expect(await counts()).toEqual({ matches: 1, audits: 1 });
    } finally {
      await t.db.query("DROP TRIGGER refuse_audit ON operator_audit_log");
    }
  });
});
