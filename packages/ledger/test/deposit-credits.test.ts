import { randomUUID } from "node:crypto";
import { ConflictError, NotFoundError, ValidationError } from "@mp/core";
import type { Queryable } from "@mp/db";
import { describe, expect, it } from "vitest";
import { useTestDatabase } from "../../../test/support/test-database.ts";
import { checkLedger, getMerchantBalance, postDepositCredits } from "../src/index.ts";
import { createMerchant, postOneCredit, reverseDeposit, USD, uncreditedDeposit } from "./ledger-fixtures.ts";

const t = useTestDatabase();

/** An entry as rows, with its own ids left out so two postings of the same movement compare equal. */
async function entryRows(q: Queryable, reference: string) {
  const r = await q.query<{
    kind: string;
    merchant_id: string | null;
    line_no: number;
    account: string;
    account_merchant: string | null;
    currency: string;
    side: string;
    amount: string;
  }>(
    `SELECT e.kind, e.merchant_id, l.line_no, a.kind AS account, a.merchant_id AS account_merchant, l.currency,
            l.side, l.amount::text AS amount
       FROM journal_entries e JOIN journal_lines l ON l.entry_id = e.id JOIN ledger_accounts a ON a.id = l.account_id
      WHERE e.reference = $1 ORDER BY l.line_no`,
    [reference],
  );
  return r.rows;
}

async function systemBalances(q: Queryable): Promise<Record<string, bigint>> {
  const r = await q.query<{ kind: string; balance: string }>(
    `SELECT a.kind, b.balance::text AS balance FROM account_balances b JOIN ledger_accounts a ON a.id = b.account_id
      WHERE a.merchant_id IS NULL`,
  );
  return Object.fromEntries(r.rows.map((row) => [row.kind, BigInt(row.balance)]));
}

/** Records each credit entry on its deposit, as the indexer does in the same transaction. */
async function linkCredits(): Promise<void> {
  await t.db.query(
    `UPDATE deposits d SET credit_entry_id = e.id FROM journal_entries e
      WHERE e.kind = 'deposit_credit' AND e.reference = d.id::text AND d.credit_entry_id IS NULL`,
  );
}

async function ledgerProblems(): Promise<string[]> {
  await linkCredits();
  return (await checkLedger(t.db)).problems;
}

describe("postDepositCredits", () => {
  it("posts exactly the rows of one-at-a-time credits, for several merchants, and moves balances by the sums", async () => {
    const a = await createMerchant(t.db);
    const b = await createMerchant(t.db);
    const inputs = [
      await uncreditedDeposit(t.db, a, { gross: 100n * USD, fee: 1_500_000n }),
      await uncreditedDeposit(t.db, b, { gross: 7n * USD, fee: 0n }),
      await uncreditedDeposit(t.db, a, { gross: 3n * USD, fee: 30_000n }),
    ];
    const twins = await Promise.all(
      inputs.map((i) =>
        uncreditedDeposit(t.db, i.merchantId === a.merchantId ? a : b, {
          gross: i.amountUsdMicros,
          fee: i.feeUsdMicros,
        }),
      ),
    );
    const before = await systemBalances(t.db);

    const posted = await t.db.tx((c) => postDepositCredits(c, inputs));
    expect(posted.map((p) => p.depositId)).toEqual(inputs.map((i) => i.depositId));
    expect(posted.every((p) => p.created)).toBe(true);
    expect(new Set(posted.map((p) => p.entryId)).size).toBe(3);

    const afterBulk = await systemBalances(t.db);
    await t.db.tx(async (c) => {
      for (const twin of twins) await postOneCredit(c, twin);
    });
    const afterSingle = await systemBalances(t.db);

    for (const [i, input] of inputs.entries()) {
      const bulk = await entryRows(t.db, input.depositId);
      expect(bulk).toHaveLength(3);
      expect(bulk).toEqual(await entryRows(t.db, twins[i]?.depositId ?? ""));
    }
    expect(await getMerchantBalance(t.db, a.merchantId)).toEqual({
      available: 2n * (98_500_000n + 2_970_000n),
      reserved: 0n,
      held: 0n,
    });
    expect(await getMerchantBalance(t.db, b.merchantId)).toEqual({ available: 2n * 7n * USD, reserved: 0n, held: 0n });
    for (const kind of ["deposit_clearing", "fee_revenue"]) {
      expect((afterBulk[kind] ?? 0n) - (before[kind] ?? 0n)).toBe((afterSingle[kind] ?? 0n) - (afterBulk[kind] ?? 0n));
    }
    expect(afterBulk.deposit_clearing! - before.deposit_clearing!).toBe(110n * USD);
    expect(afterBulk.fee_revenue! - before.fee_revenue!).toBe(1_530_000n);
    expect(await ledgerProblems()).toEqual([]);
  });

  it("is idempotent per deposit: a repeat posts nothing and answers the first entries, whichever way they were posted", async () => {
    const m = await createMerchant(t.db);
    const single = await uncreditedDeposit(t.db, m, { gross: 5n * USD, fee: 50_000n });
    const { entryId: singleEntry } = await t.db.tx((c) => postOneCredit(c, single));
    const first = [
      await uncreditedDeposit(t.db, m, { gross: 2n * USD, fee: 0n }),
      await uncreditedDeposit(t.db, m, { gross: 9n * USD, fee: 90_000n }),
    ];
    const posted = await t.db.tx((c) => postDepositCredits(c, first));
    const balance = await getMerchantBalance(t.db, m.merchantId);
    const entries = await t.db.query("SELECT 1 FROM journal_entries");

    const newcomer = await uncreditedDeposit(t.db, m, { gross: 1n * USD, fee: 0n });
    const repeated = await t.db.tx((c) => postDepositCredits(c, [first[1]!, single, newcomer, first[0]!]));
    expect(repeated.map(({ entryId, created }) => ({ entryId, created }))).toEqual([
      { entryId: posted[1]?.entryId, created: false },
      { entryId: singleEntry, created: false },
      { entryId: repeated[2]?.entryId, created: true },
      { entryId: posted[0]?.entryId, created: false },
    ]);
    expect((await t.db.query("SELECT 1 FROM journal_entries")).rowCount).toBe((entries.rowCount ?? 0) + 1);
    expect(await getMerchantBalance(t.db, m.merchantId)).toEqual({
      available: balance.available + USD,
      reserved: 0n,
      held: 0n,
    });
    // And a credit posted alone sees a bulk-posted credit as its own.
    expect(await t.db.tx((c) => postOneCredit(c, first[0]!))).toEqual({ entryId: posted[0]?.entryId });
    expect(await ledgerProblems()).toEqual([]);
  });

  it("refuses a repeat with other figures, for another merchant, or twice in one call, and posts nothing", async () => {
    const m = await createMerchant(t.db);
    const other = await createMerchant(t.db);
    const posted = await uncreditedDeposit(t.db, m, { gross: 4n * USD, fee: 40_000n });
    await t.db.tx((c) => postDepositCredits(c, [posted]));
    const entries = (await t.db.query("SELECT 1 FROM journal_entries")).rowCount;
    const fresh = await uncreditedDeposit(t.db, m, { gross: 1n * USD, fee: 0n });

    await expect(
      t.db.tx((c) => postDepositCredits(c, [fresh, { ...posted, amountUsdMicros: 5n * USD }])),
    ).rejects.toBeInstanceOf(ConflictError);
    await expect(
      t.db.tx((c) => postDepositCredits(c, [fresh, { ...posted, merchantId: other.merchantId }])),
    ).rejects.toBeInstanceOf(ConflictError);
    await expect(t.db.tx((c) => postDepositCredits(c, [fresh, fresh]))).rejects.toBeInstanceOf(ValidationError);
    await expect(t.db.tx((c) => postDepositCredits(c, [{ ...fresh, feeUsdMicros: 2n * USD }]))).rejects.toBeInstanceOf(
      ValidationError,
    );
    await expect(
      t.db.tx((c) => postDepositCredits(c, [{ ...fresh, merchantId: randomUUID() }])),
    ).rejects.toBeInstanceOf(NotFoundError);
    // Each field's check names the field (the inputs are checked by hand, not by zod: see checkCreditInput).
    const refusals: Array<[string, Record<string, unknown>]> = [
      ["depositId", { depositId: "not-a-uuid" }],
      ["merchantId", { merchantId: 42 }],
      ["entryId", { entryId: "" }],
      ["amountUsdMicros", { amountUsdMicros: -1n }],
      ["amountUsdMicros", { amountUsdMicros: 10n ** 30n }],
      ["feeUsdMicros", { feeUsdMicros: 1 }],
      ["held", { held: "yes" }],
      ["awaitsApplication", { held: true, awaitsApplication: true }],
    ];
    for (const [field, change] of refusals) {
      const refused = t.db.tx((c) => postDepositCredits(c, [{ ...fresh, ...change } as typeof fresh]));
      await expect(refused).rejects.toMatchObject({ constructor: ValidationError, field });
    }
    expect((await t.db.query("SELECT 1 FROM journal_entries")).rowCount).toBe(entries);
    expect(await postDepositCredits(t.db, [])).toEqual([]);
    // Nothing of the refused calls stayed behind: the fresh deposit is credited once, now.
    expect((await t.db.tx((c) => postDepositCredits(c, [fresh, posted]))).map((p) => p.created)).toEqual([true, false]);
    expect(await ledgerProblems()).toEqual([]);
  });

  it("opens a merchant's accounts on its first credit, and a bulk credit reverses like a single one", async () => {
    const m = await createMerchant(t.db);
    const input = await uncreditedDeposit(t.db, m, { gross: 6n * USD, fee: 60_000n });
    const [posted] = await t.db.tx((c) => postDepositCredits(c, [input]));
    expect(await getMerchantBalance(t.db, m.merchantId)).toEqual({ available: 5_940_000n, reserved: 0n, held: 0n });
    await linkCredits();
    const reversal = await reverseDeposit(t.db, m, input.depositId);
    expect(reversal?.entryId).toBeDefined();
    expect(reversal?.entryId).not.toBe(posted?.entryId);
    expect(await getMerchantBalance(t.db, m.merchantId)).toEqual({ available: 0n, reserved: 0n, held: 0n });
    expect(await ledgerProblems()).toEqual([]);
  });

  it("keeps the ledger exact under concurrent bulk and single credits of overlapping deposits", async () => {
    const m = await createMerchant(t.db);
    const inputs = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        uncreditedDeposit(t.db, m, { gross: BigInt(i + 1) * USD, fee: BigInt(i) * 1_000n }),
      ),
    );
    const halves = [inputs.slice(0, 25), inputs.slice(15)];
    await Promise.all([
      ...halves.map((half) => t.db.tx((c) => postDepositCredits(c, half))),
      ...inputs.slice(10, 20).map((input) => t.db.tx((c) => postOneCredit(c, input))),
    ]);
    const expected = inputs.reduce((sum, i) => sum + i.amountUsdMicros - i.feeUsdMicros, 0n);
    expect(await getMerchantBalance(t.db, m.merchantId)).toEqual({ available: expected, reserved: 0n, held: 0n });
    const count = await t.db.query(
      "SELECT count(*)::int AS n FROM journal_entries WHERE kind = 'deposit_credit' AND merchant_id = $1",
      [m.merchantId],
    );
    expect(count.rows[0]?.n).toBe(40);
    expect(await ledgerProblems()).toEqual([]);
  });
});
