import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { useTestDatabase } from "../../../test/support/test-database.ts";
import { checkLedger, postBankSuspense, readBankSuspense, releaseBankSuspense } from "../src/index.ts";

const t = useTestDatabase();

describe("bank suspense", () => {
  it("posts an unmatched line once, counts it with its age, and moves it out once", async () => {
    const lineId = randomUUID();
    const first = await t.db.tx((c) => postBankSuspense(c, { lineId, amountUsdMicros: 12_340_000n }));
    const again = await t.db.tx((c) => postBankSuspense(c, { lineId, amountUsdMicros: 12_340_000n }));
    expect(again.entryId).toBe(first.entryId);
    await expect(t.db.tx((c) => postBankSuspense(c, { lineId, amountUsdMicros: 1n }))).rejects.toMatchObject({
      code: "conflict",
    });
    const open = await readBankSuspense(t.db);
    expect(open).toMatchObject({ lines: 1, amountUsdMicros: 12_340_000n });
    expect(open.oldestSince).toBeInstanceOf(Date);
    expect((await checkLedger(t.db)).problems).toEqual([]);

    const out = await t.db.tx((c) => releaseBankSuspense(c, lineId));
    expect(await t.db.tx((c) => releaseBankSuspense(c, lineId))).toEqual(out);
    expect(await t.db.tx((c) => releaseBankSuspense(c, randomUUID()))).toBeNull();
    expect(await readBankSuspense(t.db)).toEqual({ lines: 0, amountUsdMicros: 0n, oldestSince: null });
    const check = await checkLedger(t.db);
    expect(check.problems).toEqual([]);
    expect(check.suspense.lines).toBe(0);
  });
});
