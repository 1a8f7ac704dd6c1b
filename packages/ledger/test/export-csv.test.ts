import { randomUUID } from "node:crypto";
import { ValidationError } from "@mp/core";
import { describe, expect, it } from "vitest";
import { useTestDatabase } from "../../../test/support/test-database.ts";
import { exportJournalCsv, placeHold } from "../src/index.ts";
import { createMerchant, creditDeposit, postOneCredit, USD } from "./ledger-fixtures.ts";

const t = useTestDatabase();

async function exportLines(from: Date, to: Date): Promise<{ lines: string[]; count: number }> {
  const lines: string[] = [];
  const count = await exportJournalCsv(t.db, { from, to }, (line) => lines.push(line));
  return { lines, count };
}

const later = () => new Date(Date.now() + 60_000);

describe("exportJournalCsv", () => {
  it("writes the header and one line per journal line of the entries in [from, to)", async () => {
    const before = await createMerchant(t.db);
    await creditDeposit(t.db, before, { gross: 1n * USD, fee: 0n });
    await new Promise((resolve) => setTimeout(resolve, 5));
    const from = new Date();

    const m = await createMerchant(t.db);
    const { depositId, entryId } = await creditDeposit(t.db, m, { gross: 12n * USD + 500_000n, fee: 250_000n });
    const holdId = `payout "7", batch 1`;
    const hold = await t.db.tx((c) => placeHold(c, { holdId, merchantId: m.merchantId, amountUsdMicros: 2n * USD }));
    const { lines, count } = await exportLines(from, later());

    expect(count).toBe(5);
    expect(lines).toHaveLength(6);
    expect(lines[0]).toBe("entry_id,created_at,kind,reference,account,merchant_id,debit,credit,currency");
    const created = await t.db.query<{ id: string; created_at: Date }>(
      "SELECT id, created_at FROM journal_entries WHERE id = ANY($1::uuid[])",
      [[entryId, hold.entryId]],
    );
    const at = (id: string) => created.rows.find((r) => r.id === id)?.created_at.toISOString();
    expect(lines.slice(1)).toEqual([
      `${entryId},${at(entryId)},deposit_credit,${depositId},deposit_clearing,,12.500000,,USD`,
      `${entryId},${at(entryId)},deposit_credit,${depositId},merchant_available,${m.merchantId},,12.250000,USD`,
      `${entryId},${at(entryId)},deposit_credit,${depositId},fee_revenue,,,0.250000,USD`,
      `${hold.entryId},${at(hold.entryId)},hold,"payout ""7"", batch 1",merchant_available,${m.merchantId},2.000000,,USD`,
      `${hold.entryId},${at(hold.entryId)},hold,"payout ""7"", batch 1",merchant_reserved,${m.merchantId},,2.000000,USD`,
    ]);

    // The range is half-open and can be empty.
    expect(await exportLines(later(), later())).toEqual({
      lines: ["entry_id,created_at,kind,reference,account,merchant_id,debit,credit,currency"],
      count: 0,
    });
    await expect(exportLines(later(), from)).rejects.toBeInstanceOf(ValidationError);
  });

  it("with a merchant, writes only the lines on that merchant's own accounts", async () => {
    const from = new Date(Date.now() - 1);
    const m = await createMerchant(t.db);
    const other = await createMerchant(t.db);
    const { entryId } = await creditDeposit(t.db, m, { gross: 3n * USD, fee: 100_000n });
    await creditDeposit(t.db, other, { gross: 5n * USD, fee: 0n });
    const lines: string[] = [];
    const count = await exportJournalCsv(t.db, { from, to: later(), merchantId: m.merchantId }, (line) =>
      lines.push(line),
    );
    expect(count).toBe(1);
    expect(lines[1]).toMatch(new RegExp(`^${entryId},.*,merchant_available,${m.merchantId},,2.900000,USD$`));
  });

  it("pages through more lines than one query returns, in posting order, without gaps or repeats", async () => {
    const m = await createMerchant(t.db);
    const from = new Date(Date.now() - 1);
    // 334 credits of three lines in one transaction share one created_at: the pages split inside it.
    const references = await t.db.tx(async (c) => {
      const ids: string[] = [];
      for (let i = 0; i < 334; i++) {
        const depositId = randomUUID();
        await postOneCredit(c, {
          depositId,
          merchantId: m.merchantId,
          amountUsdMicros: BigInt(i + 1),
          feeUsdMicros: 0n,
        });
        ids.push(depositId);
      }
      return ids;
    });
    const { lines, count } = await exportLines(from, later());
    const mine = lines
      .slice(1)
      .filter((line) => line.includes(",deposit_clearing,") && references.some((r) => line.includes(r)));
    expect(count).toBeGreaterThanOrEqual(1002);
    expect(new Set(lines).size).toBe(lines.length);
    // In posting order: the i-th credit debits clearing by i + 1 micro-dollars.
    expect(mine.map((line) => line.split(",")[6])).toEqual(
      references.map((_, i) => `0.${String(i + 1).padStart(6, "0")}`),
    );
  });
});
