import { randomUUID } from "node:crypto";
import type { Queryable } from "@mp/db";
import { beforeAll, describe, expect, it } from "vitest";
import { insertMerchantWithCustomer } from "../../../test/support/db-fixtures.ts";
import { useTestDatabase } from "../../../test/support/test-database.ts";
import { merchantAccounts } from "../src/accounts.ts";

/**
 * migrations/0330: the merchant named by a journal entry or an event is checked once per INSERT
 * statement instead of by a foreign key; the guarantees of the foreign keys stay.
 */
const t = useTestDatabase();
let merchantId: string;

beforeAll(async () => {
  merchantId = (await t.db.tx((c) => insertMerchantWithCustomer(c, "Merchant references"))).merchantId;
});

async function insertEntries(q: Queryable, merchants: readonly string[]): Promise<void> {
  await q.query(
    `INSERT INTO journal_entries (id, kind, reference, merchant_id)
     SELECT gen_random_uuid(), 'bank_deposit', 'references-' || gen_random_uuid(), m FROM unnest($1::uuid[]) AS m`,
    [merchants],
  );
}

async function insertEvents(q: Queryable, merchants: readonly string[]): Promise<void> {
  await q.query(
    `INSERT INTO events (id, merchant_id, environment, type, object_type, object_id, object_version, data)
     SELECT gen_random_uuid(), m, 'sandbox', 'deposit.confirmed', 'deposit', gen_random_uuid()::text, 1, '{}'
       FROM unnest($1::uuid[]) AS m`,
    [merchants],
  );
}

/** A committed, balanced entry of the merchant (the journal refuses one without its lines at COMMIT). */
async function postEntry(id: string): Promise<void> {
  await t.db.tx(async (c) => {
    const accounts = await merchantAccounts(c, id);
    const entry = randomUUID();
    await c.query(
      "INSERT INTO journal_entries (id, kind, reference, merchant_id) VALUES ($1, 'bank_deposit', $2, $3)",
      [entry, `references-${entry}`, id],
    );
    await c.query(
      `INSERT INTO journal_lines (entry_id, line_no, account_id, currency, side, amount)
       VALUES ($1, 1, $2, 'USD', 'debit', 5), ($1, 2, $3, 'USD', 'credit', 5)`,
      [entry, accounts.deposit_clearing.id, accounts.merchant_available.id],
    );
  });
}

/** True when the merchant's row is locked by the calling transaction alone (its xmax is this transaction's). */
async function lockedByThisTransaction(q: Queryable, id: string): Promise<boolean> {
  const { rows } = await q.query<{ locked: boolean }>(
    "SELECT xmax = pg_current_xact_id()::xid AS locked FROM merchants WHERE id = $1",
    [id],
  );
  return rows[0]?.locked ?? false;
}

describe("merchant references of journal entries and events", () => {
  for (const [table, insert] of [
    ["journal_entries", insertEntries],
    ["events", insertEvents],
  ] as const) {
    it(`refuses rows of ${table} naming no merchant, whatever else the statement holds`, async () => {
      const unknown = randomUUID();
      await expect(t.db.tx((c) => insert(c, [merchantId, unknown, merchantId]))).rejects.toMatchObject({
        code: "23503",
        message: expect.stringContaining(unknown),
      });
      const { rows } = await t.db.query(`SELECT 1 FROM ${table} WHERE merchant_id = $1`, [merchantId]);
      expect(rows).toHaveLength(0);
    });

    it(`locks the merchants a statement of ${table} names, as the foreign key did`, async () => {
      await t.db
        .tx(async (c) => {
          expect(await lockedByThisTransaction(c, merchantId)).toBe(false);
          await insert(c, [merchantId, merchantId]);
          // A concurrent DELETE of the merchant now waits for this transaction, then sees its rows.
          expect(await lockedByThisTransaction(c, merchantId)).toBe(true);
          throw new Error("rolled back");
        })
        .catch((error: unknown) => {
          if (!(error instanceof Error && error.message === "rolled back")) throw error;
        });
    });
  }

  it("refuses to delete a merchant, change its id or truncate merchants while an entry or an event names it", async () => {
    const entryOnly = (await t.db.tx((c) => insertMerchantWithCustomer(c, "Entry only"))).merchantId;
    const eventOnly = (await t.db.tx((c) => insertMerchantWithCustomer(c, "Event only"))).merchantId;
    await postEntry(entryOnly);
    await t.db.tx((c) => insertEvents(c, [eventOnly]));
    for (const id of [entryOnly, eventOnly]) {
      // The customer goes first: only the entry or the event still names the merchant.
      await expect(
        t.db.tx(async (c) => {
          await c.query("DELETE FROM customers WHERE merchant_id = $1", [id]);
          await c.query("DELETE FROM merchants WHERE id = $1", [id]);
        }),
      ).rejects.toMatchObject({ code: "23503", message: expect.stringContaining(id) });
      await expect(
        t.db.tx(async (c) => {
          await c.query("DELETE FROM customers WHERE merchant_id = $1", [id]);
          await c.query("UPDATE merchants SET id = gen_random_uuid() WHERE id = $1", [id]);
        }),
      ).rejects.toMatchObject({ code: "23503", message: expect.stringContaining(id) });
    }
    await expect(t.db.query("TRUNCATE merchants CASCADE")).rejects.toMatchObject({ code: "23503" });
    // A merchant nothing names still goes, and its other columns still change.
    const unnamed = (await t.db.tx((c) => insertMerchantWithCustomer(c, "Unnamed"))).merchantId;
    await t.db.query("UPDATE merchants SET name = 'Renamed' WHERE id = $1", [entryOnly]);
    await t.db.tx(async (c) => {
      await c.query("DELETE FROM customers WHERE merchant_id = $1", [unnamed]);
      await c.query("DELETE FROM merchants WHERE id = $1", [unnamed]);
    });
    const { rows } = await t.db.query("SELECT id FROM merchants WHERE id = ANY($1::uuid[])", [
      [entryOnly, eventOnly, unnamed],
    ]);
    expect(rows.map((r) => r.id).sort()).toEqual([entryOnly, eventOnly].sort());
  });
});
