import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { useTestDatabase } from "../../../test/support/test-database.ts";
import { postBankSuspense, readBankSuspense, releaseBankSuspense, returnToBankSuspense } from "../src/index.ts";

const t = useTestDatabase();

/**
 * The ledger's own checks: from a fresh copy of the package. Test files share a worker's modules
 * (isolate: false), and a file that loaded the transfers' checks registered them in the shared copy;
 * those hold a later stay in suspense to a sent-back bank return, which this unit test does not make.
 */
let checkLedger: typeof import("../src/index.ts").checkLedger;
beforeAll(async () => {
  vi.resetModules();
  ({ checkLedger } = await import("../src/index.ts"));
});

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

  it("a line out of suspense comes back once per sent-back payout, as a new stay, and leaves it again once", async () => {
    const lineId = randomUUID();
    const [firstKey, secondKey] = [randomUUID(), randomUUID()];
    await t.db.tx((c) => postBankSuspense(c, { lineId, amountUsdMicros: 60_000_000n }));
    // Still in suspense: nothing to come back from.
    await expect(t.db.tx((c) => returnToBankSuspense(c, { lineId, payoutKey: firstKey }))).rejects.toMatchObject({
      code: "conflict",
    });
    await t.db.tx((c) => releaseBankSuspense(c, lineId));
    const back = await t.db.tx((c) => returnToBankSuspense(c, { lineId, payoutKey: firstKey }));
    expect(await t.db.tx((c) => returnToBankSuspense(c, { lineId, payoutKey: firstKey }))).toEqual(back);
    expect(await readBankSuspense(t.db)).toMatchObject({ lines: 1, amountUsdMicros: 60_000_000n });
    expect((await checkLedger(t.db)).problems).toEqual([]);
    // Out again: the latest stay's exit, once.
    const out = await t.db.tx((c) => releaseBankSuspense(c, lineId));
    expect(await t.db.tx((c) => releaseBankSuspense(c, lineId))).toEqual(out);
    expect((await readBankSuspense(t.db)).lines).toBe(0);
    await t.db.tx((c) => returnToBankSuspense(c, { lineId, payoutKey: secondKey }));
    const { rows } = await t.db.query<{ kind: string; reference: string; amount: string }>(
      `SELECT e.kind, e.reference, l.amount::text AS amount FROM journal_entries e
         JOIN journal_lines l ON l.entry_id = e.id AND l.line_no = 1
        WHERE e.reference = $1 OR starts_with(e.reference, $1 || ':') ORDER BY e.seq`,
      [lineId],
    );
    expect(rows).toEqual([
      { kind: "bank_suspense_in", reference: lineId, amount: "60000000" },
      { kind: "bank_suspense_out", reference: lineId, amount: "60000000" },
      { kind: "bank_suspense_in", reference: `${lineId}:${firstKey}`, amount: "60000000" },
      { kind: "bank_suspense_out", reference: `${lineId}:${firstKey}`, amount: "60000000" },
      { kind: "bank_suspense_in", reference: `${lineId}:${secondKey}`, amount: "60000000" },
    ]);
    expect((await readBankSuspense(t.db)).lines).toBe(1);
    // A line that never entered suspense (imported before it existed) comes back to nothing.
    expect(await t.db.tx((c) => returnToBankSuspense(c, { lineId: randomUUID(), payoutKey: firstKey }))).toBeNull();
  });
});
