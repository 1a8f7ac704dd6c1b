import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { useTestDatabase } from "../../../test/support/test-database.ts";
import { checkLedger, placeHold, releaseHold, settleHold } from "../src/index.ts";
import {
  createMerchant,
  creditBankDeposit,
  creditDeposit,
  type MerchantFixture,
  postOneCredit,
  reverseDeposit,
  USD,
  uncreditedDeposit,
} from "./ledger-fixtures.ts";

const t = useTestDatabase();
let m: MerchantFixture;
let other: MerchantFixture;

beforeAll(async () => {
  m = await createMerchant(t.db);
  other = await createMerchant(t.db);
  // A little of everything: credits with fees, a reversal, a bank deposit, settled, released and open holds.
  await creditDeposit(t.db, m, { gross: 50n * USD, fee: 500_000n });
  const reversed = await creditDeposit(t.db, m, { gross: 8n * USD, fee: 0n });
  await reverseDeposit(t.db, m, reversed.depositId);
  await creditBankDeposit(t.db, m, 20n * USD);
  await creditDeposit(t.db, other, { gross: 3n * USD, fee: 30_000n });
  const settled = randomUUID();
  const released = randomUUID();
  await t.db.tx(async (c) => {
    await placeHold(c, { holdId: settled, merchantId: m.merchantId, amountUsdMicros: 10n * USD });
    await placeHold(c, { holdId: released, merchantId: m.merchantId, amountUsdMicros: 5n * USD });
    await placeHold(c, { holdId: randomUUID(), merchantId: m.merchantId, amountUsdMicros: 1n * USD });
  });
  await t.db.tx((c) => settleHold(c, { holdId: settled, merchantId: m.merchantId }));
  await t.db.tx((c) => releaseHold(c, { holdId: released, merchantId: m.merchantId }));
});

async function availableAccountId(merchantId: string): Promise<string> {
  const r = await t.db.query<{ id: string }>(
    "SELECT id FROM ledger_accounts WHERE merchant_id = $1 AND kind = 'merchant_available'",
    [merchantId],
  );
  return r.rows[0]?.id ?? "";
}

describe("checkLedger", () => {
  it("passes on a clean ledger and counts its entries and merchants", async () => {
    // 3 deposit credits, 1 reversal, 1 bank deposit, 3 holds, 1 settle, 1 release.
    expect(await checkLedger(t.db)).toEqual({
      ok: true,
      problems: [],
      entries: 10,
      merchants: 2,
      suspense: { lines: 0, amountUsdMicros: 0n, oldestSince: null },
    });
  });

  it("reports a balance row that no longer equals the sum of its lines", async () => {
    const account = await availableAccountId(m.merchantId);
    await t.db.query("UPDATE account_balances SET balance = balance + 1 WHERE account_id = $1", [account]);
    try {
      const result = await checkLedger(t.db);
      expect(result.ok).toBe(false);
      // available: 49.5 net + 20 bank - 16 held + 5 released = 58.5
      expect(result.problems).toEqual([
        `account merchant_available of merchant ${m.merchantId} (${account}): balance row 58.500001 USD, sum of its lines 58.500000 USD`,
      ]);
    } finally {
      await t.db.query("UPDATE account_balances SET balance = balance - 1 WHERE account_id = $1", [account]);
    }
    expect((await checkLedger(t.db)).ok).toBe(true);
  });

  it("reports a deposit whose credit is missing from the journal, with the merchant and both figures", async () => {
    const { depositId } = await uncreditedDeposit(t.db, other, { gross: 4n * USD, fee: 0n });
    const missing = randomUUID();
    await t.db.query("UPDATE deposits SET credit_entry_id = $2 WHERE id = $1", [depositId, missing]);
    try {
      const result = await checkLedger(t.db);
      expect(result.ok).toBe(false);
      expect(result.problems).toEqual([
        `deposit ${depositId} of merchant ${other.merchantId}: credit entry ${missing} is not in the journal as its deposit_credit`,
        `merchant ${other.merchantId}: ledger available+reserved 2.970000 USD, source documents 6.970000 USD ` +
          "(crypto deposits 6.970000 USD + bank deposits 0.000000 USD - payouts 0.000000 USD); difference -4.000000 USD",
      ]);
    } finally {
      await t.db.query("UPDATE deposits SET credit_entry_id = NULL WHERE id = $1", [depositId]);
    }
    expect((await checkLedger(t.db)).ok).toBe(true);
  });

  it("reports a credit entry that no deposit records, and a hold row that disagrees with reserved", async () => {
    await t.db.tx(async (c) => {
      const depositId = randomUUID();
      const { entryId } = await postOneCredit(c, {
        depositId,
        merchantId: other.merchantId,
        amountUsdMicros: 2n * USD,
        feeUsdMicros: 0n,
      });
      await c.query(
        "UPDATE ledger_holds SET status = 'RELEASED', resolved_at = now(), resolution_entry_id = hold_entry_id WHERE merchant_id = $1 AND status = 'HELD'",
        [m.merchantId],
      );
      const check = await checkLedger(c);
      // Merchant-level lines come in merchant id order, which is random here.
      expect([...check.problems].sort()).toEqual(
        [
          `entry ${entryId} (deposit_credit ${depositId}) of merchant ${other.merchantId} is not recorded on deposit ${depositId}`,
          `merchant ${m.merchantId}: ledger reserved 1.000000 USD, open holds 0.000000 USD`,
          `merchant ${other.merchantId}: ledger available+reserved 4.970000 USD, source documents 2.970000 USD ` +
            "(crypto deposits 2.970000 USD + bank deposits 0.000000 USD - payouts 0.000000 USD); difference 2.000000 USD",
        ].sort(),
      );
      await c.query("ROLLBACK");
      await c.query("BEGIN");
    });
    expect((await checkLedger(t.db)).ok).toBe(true);
  });

  it("reports an unbalanced entry seen before the commit-time trigger refuses it", async () => {
    const account = await availableAccountId(m.merchantId);
    const entryId = randomUUID();
    await t.db.tx(async (c) => {
      await c.query(
        "INSERT INTO journal_entries (id, kind, reference, merchant_id) VALUES ($1, 'bank_deposit', $2, $3)",
        [entryId, `manual-${entryId}`, m.merchantId],
      );
      await c.query(
        "INSERT INTO journal_lines (entry_id, line_no, account_id, currency, side, amount) VALUES ($1, 1, $2, 'USD', 'credit', 7)",
        [entryId, account],
      );
      const check = await checkLedger(c);
      expect(check.problems).toContain(
        `entry ${entryId} (bank_deposit manual-${entryId}) has 1 line(s); an entry needs two or more`,
      );
      expect(check.problems).toContain(
        `entry ${entryId} (bank_deposit manual-${entryId}) does not balance in USD: debits 0.000000, credits 0.000007`,
      );
      await c.query("ROLLBACK");
      await c.query("BEGIN");
    });
    expect((await checkLedger(t.db)).ok).toBe(true);
  });
});
