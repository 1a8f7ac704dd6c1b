import { randomUUID } from "node:crypto";
import { ConflictError, NotFoundError, ValidationError } from "@mp/core";
import type { Queryable } from "@mp/db";
import { describe, expect, it } from "vitest";
import { deferred } from "../../../test/support/deferred.ts";
import { eventually } from "../../../test/support/eventually.ts";
import { useTestDatabase } from "../../../test/support/test-database.ts";
import {
  checkLedger,
  type DepositCreditInput,
  getMerchantBalance,
  openMerchantAccounts,
  postDepositCredits,
} from "../src/index.ts";
import {
  createMerchant,
  linkCreditEntries,
  merchantWithOpenAccounts,
  postOneCredit,
  reverseDeposit,
  USD,
  uncreditedDeposit,
  waitingForLocks,
} from "./ledger-fixtures.ts";

const t = useTestDatabase();
const onServer = Boolean(process.env.DATABASE_URL);

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

async function ledgerProblems(): Promise<string[]> {
  await linkCreditEntries(t.db);
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
    await linkCreditEntries(t.db);
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
  it("refuses an entry id that is another entry's, and writes no line onto that entry", async () => {
    const m = await createMerchant(t.db);
    const first = await uncreditedDeposit(t.db, m, { gross: 3n * USD, fee: 30_000n });
    const [posted] = await t.db.tx((c) => postDepositCredits(c, [first]));
    const lines = await entryRows(t.db, first.depositId);
    const second = await uncreditedDeposit(t.db, m, { gross: 2n * USD, fee: 0n });
    await expect(
      t.db.tx((c) => postDepositCredits(c, [{ ...second, entryId: posted?.entryId as string }])),
    ).rejects.toBeInstanceOf(ConflictError);
    expect(await entryRows(t.db, first.depositId)).toEqual(lines);
    expect(await entryRows(t.db, second.depositId)).toEqual([]);
    expect(await ledgerProblems()).toEqual([]);
  });

  it("opens the accounts of merchants that have none before their credits, once, ignoring unknown ones", async () => {
    const fresh = await createMerchant(t.db);
    const open = await merchantWithOpenAccounts(t.db);
    const accountsOf = async (merchantId: string) =>
      (
        await t.db.query<{ id: string; kind: string }>(
          "SELECT id, kind FROM ledger_accounts WHERE merchant_id = $1 ORDER BY kind",
          [merchantId],
        )
      ).rows;
    const before = await accountsOf(open.merchantId);
    expect(await accountsOf(fresh.merchantId)).toEqual([]);
    await openMerchantAccounts(t.db, [fresh.merchantId, open.merchantId, randomUUID()]);
    const opened = await accountsOf(fresh.merchantId);
    expect(opened.map((a) => a.kind)).toEqual(["merchant_available", "merchant_held", "merchant_reserved"]);
    await openMerchantAccounts(t.db, [fresh.merchantId]);
    expect(await accountsOf(fresh.merchantId)).toEqual(opened);
    expect(await accountsOf(open.merchantId)).toEqual(before);
    // A credit finds them open and posts to them.
    const input = await uncreditedDeposit(t.db, fresh, { gross: 2n * USD, fee: 0n });
    await t.db.tx((c) => postDepositCredits(c, [input]));
    expect(await getMerchantBalance(t.db, fresh.merchantId)).toEqual({ available: 2n * USD, reserved: 0n, held: 0n });
    expect(await ledgerProblems()).toEqual([]);
  });

  /**
   * The entries go in before the balance rows are locked: a call that meets a deposit another open
   * transaction is crediting waits for it at the entry's insert. Committed, that credit is the
   * earlier one (answered, no second entry, no lines of its own); rolled back, this call credits it.
   */
  it.skipIf(!onServer)(
    "waits at the entry for a concurrent credit of the same deposit, then answers it or posts its own",
    async () => {
      for (const outcome of ["commit", "rollback"] as const) {
        const m = await merchantWithOpenAccounts(t.db);
        const contested = await uncreditedDeposit(t.db, m, { gross: 8n * USD, fee: 80_000n });
        const other = await uncreditedDeposit(t.db, m, { gross: 1n * USD, fee: 10_000n });
        const first = await openCredit(contested);
        const second = t.db.tx((c) => postDepositCredits(c, [other, contested]));
        await waitingForLocks(t.db, 1, "1 credit waiting at an entry", "INSERT INTO journal_entries").finally(() =>
          first.finish(outcome),
        );
        const [otherPosted, contestedPosted] = await second;
        expect(otherPosted?.created).toBe(true);
        expect(contestedPosted?.created).toBe(outcome === "rollback");
        if (outcome === "commit") expect(contestedPosted?.entryId).toBe(first.entryId);
        expect(await entryRows(t.db, contested.depositId)).toHaveLength(3);
        expect(await getMerchantBalance(t.db, m.merchantId)).toEqual({
          available: USD + 8n * USD - 80_000n + USD - 10_000n,
          reserved: 0n,
          held: 0n,
        });
      }
      expect(await ledgerProblems()).toEqual([]);
    },
  );

  /**
   * Two calls with the same deposits in opposite orders, both held at the middle one by a third open
   * transaction until it rolls back: inserted in the order given, each would then wait for the
   * other's entries (a deadlock, one call refused); inserted in the order of their references, the
   * second waits for the first and both go through.
   */
  it.skipIf(!onServer)(
    "never deadlocks: concurrent bulk credits of the same deposits in opposite orders both go through",
    async () => {
      const m = await merchantWithOpenAccounts(t.db);
      const inputs = await Promise.all(
        Array.from({ length: 9 }, (_, i) => uncreditedDeposit(t.db, m, { gross: BigInt(i + 1) * USD, fee: 0n })),
      );
      inputs.sort((a, b) => (a.depositId < b.depositId ? -1 : 1));
      const middle = await openCredit(inputs[4] as (typeof inputs)[number]);
      const calls = [inputs, [...inputs].reverse()].map((order) => t.db.tx((c) => postDepositCredits(c, order)));
      await waitingForLocks(t.db, 2, "2 credits waiting at an entry", "INSERT INTO journal_entries").finally(() =>
        middle.finish("rollback"),
      );
      const posted = await Promise.all(calls);
      // Each deposit credited once: both calls answer the one entry that exists.
      for (const input of inputs) {
        const entryIds = new Set(
          posted.map((results) => results.find((p) => p.depositId === input.depositId)?.entryId),
        );
        expect(entryIds.size).toBe(1);
      }
      const expected = USD + inputs.reduce((sum, i) => sum + i.amountUsdMicros, 0n);
      expect(await getMerchantBalance(t.db, m.merchantId)).toEqual({ available: expected, reserved: 0n, held: 0n });
      expect(await ledgerProblems()).toEqual([]);
    },
  );
});

/** Credits `input` in a transaction left open until `finish` commits or rolls it back. */
async function openCredit(input: DepositCreditInput) {
  const finished = deferred<"commit" | "rollback">();
  let entryId = "";
  const transaction = t.db.tx(async (c) => {
    entryId = (await postDepositCredits(c, [input]))[0]?.entryId ?? "";
    if ((await finished.promise) === "rollback") throw new Error("rolled back on purpose");
  });
  const settled = transaction.catch((error: unknown) => {
    if (!(error instanceof Error && error.message === "rolled back on purpose")) throw error;
  });
  await eventually(async () => (entryId ? true : undefined), 30_000, 20, "the open credit posted");
  return {
    entryId,
    finish: async (outcome: "commit" | "rollback") => {
      finished.resolve(outcome);
      await settled;
    },
  };
}
