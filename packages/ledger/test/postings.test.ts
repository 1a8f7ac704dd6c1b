import { randomUUID } from "node:crypto";
import { ConflictError, NotFoundError, ValidationError } from "@mp/core";
import { sqlState } from "@mp/db";
import { describe, expect, it } from "vitest";
import { useTestDatabase } from "../../../test/support/test-database.ts";
import { getMerchantBalance, placeHold, postBankDeposit, postDepositReversal } from "../src/index.ts";
import {
  createMerchant,
  creditBankDeposit,
  creditDeposit,
  postOneCredit,
  reverseDeposit,
  systemBalance,
  USD,
} from "./ledger-fixtures.ts";

const t = useTestDatabase();

async function linesOf(entryId: string) {
  const r = await t.db.query<{ account: string; merchant_id: string | null; side: string; amount: string }>(
    `SELECT a.kind AS account, a.merchant_id, l.side, l.amount::text AS amount
       FROM journal_lines l JOIN ledger_accounts a ON a.id = l.account_id
      WHERE l.entry_id = $1 ORDER BY l.line_no`,
    [entryId],
  );
  return r.rows.map((row) => ({ ...row, amount: BigInt(row.amount) }));
}

describe("deposit credits", () => {
  it("debits clearing by the gross and credits the merchant the net and fee revenue the fee", async () => {
    const m = await createMerchant(t.db);
    const clearingBefore = await systemBalance(t.db, "deposit_clearing");
    const feesBefore = await systemBalance(t.db, "fee_revenue");
    const { entryId } = await creditDeposit(t.db, m, { gross: 100n * USD, fee: 1_500_000n });

    expect(await linesOf(entryId)).toEqual([
      { account: "deposit_clearing", merchant_id: null, side: "debit", amount: 100n * USD },
      { account: "merchant_available", merchant_id: m.merchantId, side: "credit", amount: 98_500_000n },
      { account: "fee_revenue", merchant_id: null, side: "credit", amount: 1_500_000n },
    ]);
    expect(await getMerchantBalance(t.db, m.merchantId)).toEqual({ available: 98_500_000n, reserved: 0n, held: 0n });
    expect((await systemBalance(t.db, "deposit_clearing")) - clearingBefore).toBe(100n * USD);
    expect((await systemBalance(t.db, "fee_revenue")) - feesBefore).toBe(1_500_000n);
  });

  it("posts once per deposit: a repeat returns the first entry and posts nothing", async () => {
    const m = await createMerchant(t.db);
    const { depositId, entryId } = await creditDeposit(t.db, m, { gross: 20n * USD, fee: 0n });
    const input = { depositId, merchantId: m.merchantId, amountUsdMicros: 20n * USD, feeUsdMicros: 0n };
    const again = await t.db.tx((c) => postOneCredit(c, input));
    // Concurrent repeats too: they wait on the balance locks, then find the first entry.
    const concurrent = await Promise.all([1, 2, 3].map(() => t.db.tx((c) => postOneCredit(c, input))));
    expect([again, ...concurrent].map((r) => r.entryId)).toEqual([entryId, entryId, entryId, entryId]);
    const count = await t.db.query("SELECT 1 FROM journal_entries WHERE reference = $1", [depositId]);
    expect(count.rowCount).toBe(1);
    expect(await linesOf(entryId)).toHaveLength(3);
    expect((await getMerchantBalance(t.db, m.merchantId)).available).toBe(20n * USD);
  });

  it("refuses the same deposit with other figures or for another merchant", async () => {
    const m = await createMerchant(t.db);
    const other = await createMerchant(t.db);
    const { depositId } = await creditDeposit(t.db, m, { gross: 5n * USD, fee: 0n });
    await expect(
      t.db.tx((c) =>
        postOneCredit(c, { depositId, merchantId: m.merchantId, amountUsdMicros: 6n * USD, feeUsdMicros: 0n }),
      ),
    ).rejects.toBeInstanceOf(ConflictError);
    await expect(
      t.db.tx((c) =>
        postOneCredit(c, { depositId, merchantId: other.merchantId, amountUsdMicros: 5n * USD, feeUsdMicros: 0n }),
      ),
    ).rejects.toBeInstanceOf(ConflictError);
    expect((await getMerchantBalance(t.db, other.merchantId)).available).toBe(0n);
  });

  it("writes a zero fee as a zero line, so every credit has the same three lines", async () => {
    const m = await createMerchant(t.db);
    const { entryId } = await creditDeposit(t.db, m, { gross: 7n, fee: 0n });
    expect((await linesOf(entryId)).map((l) => [l.account, l.side, l.amount])).toEqual([
      ["deposit_clearing", "debit", 7n],
      ["merchant_available", "credit", 7n],
      ["fee_revenue", "credit", 0n],
    ]);
  });

  it("validates input without aborting the caller's transaction", async () => {
    const m = await createMerchant(t.db);
    await t.db.tx(async (c) => {
      const depositId = randomUUID();
      await expect(
        postOneCredit(c, { depositId, merchantId: m.merchantId, amountUsdMicros: 5n, feeUsdMicros: 6n }),
      ).rejects.toBeInstanceOf(ValidationError);
      await expect(
        postOneCredit(c, { depositId, merchantId: m.merchantId, amountUsdMicros: -1n, feeUsdMicros: 0n }),
      ).rejects.toBeInstanceOf(ValidationError);
      await expect(
        postOneCredit(c, {
          depositId: "not-a-uuid",
          merchantId: m.merchantId,
          amountUsdMicros: 5n,
          feeUsdMicros: 0n,
        }),
      ).rejects.toBeInstanceOf(ValidationError);
      await expect(
        postOneCredit(c, { depositId, merchantId: randomUUID(), amountUsdMicros: 5n, feeUsdMicros: 0n }),
      ).rejects.toBeInstanceOf(NotFoundError);
      expect((await c.query("SELECT 1 AS one")).rows).toEqual([{ one: 1 }]);
    });
  });
});

describe("deposit reversals", () => {
  it("posts the exact opposite lines and restores every balance", async () => {
    const m = await createMerchant(t.db);
    const clearingBefore = await systemBalance(t.db, "deposit_clearing");
    const feesBefore = await systemBalance(t.db, "fee_revenue");
    const { depositId, entryId } = await creditDeposit(t.db, m, { gross: 40n * USD, fee: 400_000n });
    const reversal = await reverseDeposit(t.db, m, depositId);
    expect(reversal).not.toBeNull();
    const credit = await linesOf(entryId);
    const opposite = credit.map((l) => ({ ...l, side: l.side === "debit" ? "credit" : "debit" }));
    expect(await linesOf(reversal?.entryId ?? "")).toEqual(opposite);
    expect(await getMerchantBalance(t.db, m.merchantId)).toEqual({ available: 0n, reserved: 0n, held: 0n });
    expect(await systemBalance(t.db, "deposit_clearing")).toBe(clearingBefore);
    expect(await systemBalance(t.db, "fee_revenue")).toBe(feesBefore);

    const again = await t.db.tx((c) => postDepositReversal(c, { depositId, merchantId: m.merchantId }));
    expect(again?.entryId).toBe(reversal?.entryId);
    expect(await getMerchantBalance(t.db, m.merchantId)).toEqual({ available: 0n, reserved: 0n, held: 0n });
  });

  it("returns null for a deposit that was never credited", async () => {
    const m = await createMerchant(t.db);
    const result = await t.db.tx((c) => postDepositReversal(c, { depositId: randomUUID(), merchantId: m.merchantId }));
    expect(result).toBeNull();
  });

  it("is never refused: available may go below zero when the money is already reserved", async () => {
    const m = await createMerchant(t.db);
    const { depositId } = await creditDeposit(t.db, m, { gross: 10n * USD, fee: 0n });
    await t.db.tx((c) => placeHold(c, { holdId: randomUUID(), merchantId: m.merchantId, amountUsdMicros: 8n * USD }));
    await reverseDeposit(t.db, m, depositId);
    expect(await getMerchantBalance(t.db, m.merchantId)).toEqual({
      available: -8n * USD,
      reserved: 8n * USD,
      held: 0n,
    });
  });
});

describe("bank deposits", () => {
  it("moves bank_clearing to merchant_available once per bank deposit", async () => {
    const m = await createMerchant(t.db);
    const bankBefore = await systemBalance(t.db, "bank_clearing");
    const entryId = await creditBankDeposit(t.db, m, 1_250_500_000n);
    expect(await linesOf(entryId)).toEqual([
      { account: "bank_clearing", merchant_id: null, side: "debit", amount: 1_250_500_000n },
      { account: "merchant_available", merchant_id: m.merchantId, side: "credit", amount: 1_250_500_000n },
    ]);
    const { rows } = await t.db.query<{ id: string }>("SELECT id FROM bank_deposits WHERE ledger_entry_id = $1", [
      entryId,
    ]);
    const bankDepositId = rows[0]?.id ?? "";
    const again = await t.db.tx((c) =>
      postBankDeposit(c, { bankDepositId, merchantId: m.merchantId, amountUsdMicros: 1_250_500_000n }),
    );
    expect(again.entryId).toBe(entryId);
    expect((await getMerchantBalance(t.db, m.merchantId)).available).toBe(1_250_500_000n);
    expect((await systemBalance(t.db, "bank_clearing")) - bankBefore).toBe(1_250_500_000n);
    await expect(
      t.db.tx((c) =>
        postBankDeposit(c, { bankDepositId: randomUUID(), merchantId: m.merchantId, amountUsdMicros: 0n }),
      ),
    ).rejects.toBeInstanceOf(ValidationError);
  });
});

describe("the journal is append-only and balanced", () => {
  it("refuses UPDATE, DELETE and TRUNCATE of entries and lines", async () => {
    const m = await createMerchant(t.db);
    const { entryId } = await creditDeposit(t.db, m, { gross: 3n * USD, fee: 0n });
    const attempts = [
      ["UPDATE journal_lines SET amount = amount + 1 WHERE entry_id = $1", [entryId]],
      ["DELETE FROM journal_lines WHERE entry_id = $1", [entryId]],
      ["UPDATE journal_entries SET reference = 'x' WHERE id = $1", [entryId]],
      ["DELETE FROM journal_entries WHERE id = $1", [entryId]],
      ["TRUNCATE journal_lines, journal_entries CASCADE", []],
      ["UPDATE ledger_accounts SET merchant_id = NULL WHERE merchant_id = $1", [m.merchantId]],
    ] as const;
    for (const [sql, params] of attempts) {
      const error = await t.db.query(sql, [...params]).then(
        () => null,
        (e: unknown) => e,
      );
      expect(sqlState(error), sql).toBe("23001");
    }
    expect(await linesOf(entryId)).toHaveLength(3);
    expect((await getMerchantBalance(t.db, m.merchantId)).available).toBe(3n * USD);
  });

  it("refuses at commit an unbalanced entry, an entry without lines and a line added to an old entry", async () => {
    const m = await createMerchant(t.db);
    const { entryId } = await creditDeposit(t.db, m, { gross: 3n * USD, fee: 0n });
    const accounts = await t.db.query<{ kind: string; id: string }>(
      "SELECT kind, id FROM ledger_accounts WHERE merchant_id = $1 OR merchant_id IS NULL",
      [m.merchantId],
    );
    const account = (kind: string) => accounts.rows.find((a) => a.kind === kind)?.id;
    const insertEntry = (c: { query: (s: string, p: unknown[]) => Promise<unknown> }, id: string) =>
      c.query("INSERT INTO journal_entries (id, kind, reference, merchant_id) VALUES ($1, 'bank_deposit', $2, $3)", [
        id,
        id,
        m.merchantId,
      ]);
    const insertLine = (
      c: { query: (s: string, p: unknown[]) => Promise<unknown> },
      entry: string,
      no: number,
      kind: string,
      side: string,
      amount: bigint,
    ) =>
      c.query(
        "INSERT INTO journal_lines (entry_id, line_no, account_id, currency, side, amount) VALUES ($1, $2, $3, 'USD', $4, $5)",
        [entry, no, account(kind), side, amount.toString()],
      );

    const unbalanced = () =>
      t.db.tx(async (c) => {
        const id = randomUUID();
        await insertEntry(c, id);
        await insertLine(c, id, 1, "bank_clearing", "debit", 10n);
        await insertLine(c, id, 2, "merchant_available", "credit", 11n);
      });
    const empty = () => t.db.tx((c) => insertEntry(c, randomUUID()));
    const appended = () => t.db.tx((c) => insertLine(c, entryId, 4, "merchant_available", "credit", 1n));
    for (const attempt of [unbalanced, empty, appended]) {
      const error = await attempt().then(
        () => null,
        (e: unknown) => e,
      );
      expect(sqlState(error), attempt.name).toBe("23514");
    }
    expect((await getMerchantBalance(t.db, m.merchantId)).available).toBe(3n * USD);
    expect(await linesOf(entryId)).toHaveLength(3);
  });
});
