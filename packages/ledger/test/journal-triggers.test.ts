import { randomUUID } from "node:crypto";
import type { Queryable } from "@mp/db";
import { beforeAll, describe, expect, it } from "vitest";
import { useTestDatabase } from "../../../test/support/test-database.ts";
import { merchantAccounts } from "../src/accounts.ts";
import { checkLedger } from "../src/index.ts";
import { createMerchant, type MerchantFixture } from "./ledger-fixtures.ts";

/**
 * The journal's database triggers (migrations/0011, made per statement in 0240): balances move by
 * the sum of a statement's lines, every entry balances at commit, a line added later to a committed
 * entry is still checked.
 */
const t = useTestDatabase();
let m: MerchantFixture;
let accounts: { available: string; clearing: string; fee: string };
let reserved: string;

beforeAll(async () => {
  m = await createMerchant(t.db);
  const own = await t.db.tx((c) => merchantAccounts(c, m.merchantId));
  accounts = { available: own.merchant_available.id, clearing: own.deposit_clearing.id, fee: own.fee_revenue.id };
  reserved = own.merchant_reserved.id;
});

async function balances(q: Queryable): Promise<{ available: bigint; clearing: bigint; fee: bigint }> {
  const { rows } = await q.query<{ account_id: string; balance: string }>(
    "SELECT account_id, balance::text AS balance FROM account_balances WHERE account_id = ANY($1::uuid[])",
    [Object.values(accounts)],
  );
  const of = (id: string) => BigInt(rows.find((r) => r.account_id === id)?.balance ?? "0");
  return { available: of(accounts.available), clearing: of(accounts.clearing), fee: of(accounts.fee) };
}

async function insertEntry(q: Queryable, entryId: string): Promise<void> {
  await q.query("INSERT INTO journal_entries (id, kind, reference, merchant_id) VALUES ($1, 'bank_deposit', $2, $3)", [
    entryId,
    `trigger-${entryId}`,
    m.merchantId,
  ]);
}

/** Lines as (entry, line_no, account, side, amount), all in one INSERT statement. */
async function insertLines(q: Queryable, lines: Array<[string, number, string, string, bigint]>): Promise<void> {
  await q.query(
    `INSERT INTO journal_lines (entry_id, line_no, account_id, currency, side, amount)
     SELECT * FROM unnest($1::uuid[], $2::smallint[], $3::uuid[], $4::text[], $5::text[], $6::numeric[])`,
    [
      lines.map((l) => l[0]),
      lines.map((l) => l[1]),
      lines.map((l) => l[2]),
      lines.map(() => "USD"),
      lines.map((l) => l[3]),
      lines.map((l) => l[4].toString()),
    ],
  );
}

/** `entry` with a deposit's two lines in `q`'s transaction: `debit` on clearing, `credit` on available (unequal: it does not balance). */
async function insertDepositEntry(q: Queryable, entry: string, debit: bigint, credit = debit): Promise<void> {
  await insertEntry(q, entry);
  await insertLines(q, [
    [entry, 1, accounts.clearing, "debit", debit],
    [entry, 2, accounts.available, "credit", credit],
  ]);
}

/** A new entry with `lines` as (line_no, account, side, amount), in one transaction: its id. */
async function postEntry(lines: Array<[number, string, string, bigint]>): Promise<string> {
  const entry = randomUUID();
  await t.db.tx(async (c) => {
    await insertEntry(c, entry);
    await insertLines(
      c,
      lines.map((l): [string, number, string, string, bigint] => [entry, ...l]),
    );
  });
  return entry;
}

describe("journal triggers", () => {
  it("moves each account by the sum of many lines on it inserted in one statement", async () => {
    const before = await balances(t.db);
    const entries = Array.from({ length: 50 }, () => randomUUID());
    await t.db.tx(async (c) => {
      for (const entry of entries) await insertEntry(c, entry);
      await insertLines(
        c,
        entries.flatMap(
          (entry, i): Array<[string, number, string, string, bigint]> => [
            [entry, 1, accounts.clearing, "debit", BigInt(100 + i)],
            [entry, 2, accounts.available, "credit", BigInt(99 + i)],
            [entry, 3, accounts.fee, "credit", 1n],
          ],
        ),
      );
    });
    const after = await balances(t.db);
    // sum over i of (100 + i), (99 + i), 1 for i in 0..49: 6,225, 6,175, 50.
    expect(after.clearing - before.clearing).toBe(6_225n);
    expect(after.available - before.available).toBe(6_175n);
    expect(after.fee - before.fee).toBe(50n);
    // Every balance row still equals the sum of its lines (the entries have no source documents:
    // checkLedger's other findings are not this test's).
    const { problems } = await checkLedger(t.db);
    expect(problems.filter((p) => p.includes("balance row"))).toEqual([]);
  });

  it("moves a debit on a credit-normal account down", async () => {
    const before = await balances(t.db);
    await postEntry([
      [1, accounts.available, "debit", 30n],
      [2, accounts.available, "debit", 10n],
      [3, accounts.clearing, "credit", 40n],
    ]);
    const after = await balances(t.db);
    expect(after.available - before.available).toBe(-40n);
    expect(after.clearing - before.clearing).toBe(-40n);
  });

  it("refuses a line on an account without a balance row, whatever else the statement holds", async () => {
    const entry = randomUUID();
    await expect(
      t.db.tx(async (c) => {
        // Rolled back with the rest: the account loses its balance row for this transaction only.
        await c.query("DELETE FROM account_balances WHERE account_id = $1", [reserved]);
        await insertEntry(c, entry);
        await insertLines(c, [
          [entry, 1, accounts.clearing, "debit", 5n],
          [entry, 2, reserved, "credit", 5n],
        ]);
      }),
    ).rejects.toMatchObject({ code: "23503", message: expect.stringMatching(/no balance row/) });
  });

  // migrations/0321: the lines' references, checked per statement instead of by foreign keys.
  it("refuses a line of an entry that does not exist, or on an account in another currency", async () => {
    const entry = randomUUID();
    await expect(
      t.db.tx(async (c) => {
        await insertEntry(c, entry);
        await insertLines(c, [
          [entry, 1, accounts.clearing, "debit", 5n],
          [randomUUID(), 1, accounts.available, "credit", 5n],
        ]);
      }),
    ).rejects.toMatchObject({ code: "23503", message: expect.stringMatching(/no such entry/) });
    await expect(
      t.db.tx(async (c) => {
        await insertEntry(c, entry);
        await c.query(
          `INSERT INTO journal_lines (entry_id, line_no, account_id, currency, side, amount)
           VALUES ($1, 1, $2, 'USD', 'debit', 5), ($1, 2, $3, 'EUR', 'credit', 5)`,
          [entry, accounts.clearing, accounts.available],
        );
      }),
    ).rejects.toMatchObject({ code: "23503", message: expect.stringMatching(/in EUR/) });
    const { rows } = await t.db.query("SELECT 1 FROM journal_entries WHERE id = $1", [entry]);
    expect(rows).toHaveLength(0);
  });

  it("refuses at commit an entry of this transaction that does not balance", async () => {
    await expect(t.db.tx((c) => insertDepositEntry(c, randomUUID(), 5n, 4n))).rejects.toThrow(/does not balance/);
  });

  it("refuses at commit a line added to an entry committed before", async () => {
    const entry = randomUUID();
    await t.db.tx((c) => insertDepositEntry(c, entry, 5n));
    await expect(t.db.tx((c) => insertLines(c, [[entry, 3, accounts.available, "credit", 1n]]))).rejects.toThrow(
      /does not balance/,
    );
    // A balanced pair added later passes the line checks (the entry as a whole still balances).
    await t.db.tx((c) =>
      insertLines(c, [
        [entry, 3, accounts.clearing, "debit", 1n],
        [entry, 4, accounts.available, "credit", 1n],
      ]),
    );
  });

  it("checks an entry inserted in a savepoint and its lines at commit", async () => {
    const entry = randomUUID();
    await expect(
      t.db.tx(async (c) => {
        await c.query("SAVEPOINT s");
        await insertEntry(c, entry);
        await c.query("RELEASE SAVEPOINT s");
        await insertLines(c, [
          [entry, 1, accounts.clearing, "debit", 5n],
          [entry, 2, accounts.available, "credit", 6n],
        ]);
      }),
    ).rejects.toThrow(/does not balance/);
  });

  // migrations/0320: one check per transaction over every entry it wrote, not one per row.
  it("checks every entry of a transaction written by many statements, whichever is unbalanced", async () => {
    const entries = Array.from({ length: 5 }, () => randomUUID());
    const bad = entries[3] as string;
    await expect(
      t.db.tx(async (c) => {
        for (const entry of entries) await insertDepositEntry(c, entry, 5n, entry === bad ? 4n : 5n);
      }),
    ).rejects.toThrow(new RegExp(`journal entry ${bad} does not balance in USD`));
    const entry = randomUUID();
    await expect(t.db.tx((c) => insertEntry(c, entry))).rejects.toThrow(
      new RegExp(`journal entry ${entry} has fewer than two lines`),
    );
  });

  it("checks again the entries written after SET CONSTRAINTS ALL IMMEDIATE ran the check", async () => {
    const first = randomUUID();
    const second = randomUUID();
    await expect(
      t.db.tx(async (c) => {
        await insertDepositEntry(c, first, 5n);
        await c.query("SET CONSTRAINTS ALL IMMEDIATE");
        await c.query("SET CONSTRAINTS ALL DEFERRED");
        await insertEntry(c, second);
        await insertLines(c, [[second, 1, accounts.clearing, "debit", 5n]]);
      }),
    ).rejects.toThrow(new RegExp(`journal entry ${second} has fewer than two lines`));
    // The immediate check itself refuses at once, before the transaction goes on.
    await expect(
      t.db.tx(async (c) => {
        await insertEntry(c, first);
        await c.query("SET CONSTRAINTS ALL IMMEDIATE");
      }),
    ).rejects.toMatchObject({ code: "23514" });
  });

  it("forgets an entry rolled back with its savepoint, and leaves no pending check behind", async () => {
    const kept = await t.db.tx(async (c) => {
      const dropped = randomUUID();
      await c.query("SAVEPOINT s");
      await insertEntry(c, dropped);
      await c.query("ROLLBACK TO SAVEPOINT s");
      const entry = randomUUID();
      await insertDepositEntry(c, entry, 2n);
      return entry;
    });
    const { rows } = await t.db.query("SELECT id FROM journal_entries WHERE id = $1", [kept]);
    expect(rows).toHaveLength(1);
    const pending = await t.db.query("SELECT count(*)::int AS n FROM journal_unchecked");
    expect(pending.rows[0]?.n).toBe(0);
  });
});
