import { ConflictError } from "@mp/core";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { useTestDatabase } from "../../../test/support/test-database.ts";
import { checkLedger, type DepositCreditInput, getMerchantBalance, postDepositCredits } from "../src/index.ts";
import { createMerchant, merchantWithOpenAccounts, USD, uncreditedDeposit } from "./ledger-fixtures.ts";

const t = useTestDatabase();
const onServer = Boolean(process.env.DATABASE_URL);
const ROLLED_BACK = "rolled back on purpose";
const DEPOSITS = 6;

/** One concurrent call: which deposits in which order, whether it commits, and one deposit it misstates. */
const call = fc.record({
  order: fc.shuffledSubarray([...Array(DEPOSITS).keys()], { minLength: 1 }),
  commit: fc.boolean(),
  // An index into `order`: that deposit sent with a fee one micro higher (a conflicting repeat).
  misstate: fc.option(fc.nat({ max: DEPOSITS - 1 }), { freq: 4 }),
  jitterMs: fc.nat({ max: 4 }),
});
type Call = typeof call extends fc.Arbitrary<infer T> ? T : never;

/**
 * Fault search over the credit's lock order (entries first, in the order of their references, then
 * the shared balance rows): 2-4 transactions credit overlapping deposits of one merchant at once, in
 * random orders, some rolled back after posting, some misstating a deposit's figures. Whatever the
 * interleaving: no deadlock and no error but a ConflictError for a call naming a deposit the calls
 * disagree on; each deposit credited at most once, by a call that committed, with that call's
 * figures; every committed call answers the one entry of each of its deposits; the balance is the
 * sum of the credited nets and the ledger checks clean. fast-check prints the seed and the shrunk
 * calls of a failure (replay: `fc.assert(..., { seed, path })`).
 */
describe("postDepositCredits under concurrency", () => {
  it.skipIf(!onServer)("credits each deposit once, never deadlocks, whatever the interleaving", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(call, { minLength: 2, maxLength: 4 }), fc.boolean(), async (calls, accountsOpen) => {
        const m = accountsOpen ? await merchantWithOpenAccounts(t.db) : await createMerchant(t.db);
        const deposits = await Promise.all(
          Array.from({ length: DEPOSITS }, (_, i) =>
            uncreditedDeposit(t.db, m, { gross: BigInt(i + 2) * USD, fee: BigInt(i) * 1_000n }),
          ),
        );
        const inputsOf = (c: Call): DepositCreditInput[] =>
          c.order.map((index, position) => {
            const deposit = deposits[index] as DepositCreditInput;
            return position === c.misstate ? { ...deposit, feeUsdMicros: deposit.feeUsdMicros + 1n } : deposit;
          });
        const outcomes = await Promise.allSettled(
          calls.map(async (c) => {
            await new Promise((resolve) => setTimeout(resolve, c.jitterMs));
            return t.db.tx(async (client) => {
              const posted = await postDepositCredits(client, inputsOf(c));
              if (!c.commit) throw new Error(ROLLED_BACK);
              return posted;
            });
          }),
        );

        const stored = await t.db.query<{ reference: string; id: string; fee: string }>(
          `SELECT e.reference, e.id, (SELECT l.amount::text FROM journal_lines l JOIN ledger_accounts a ON a.id = l.account_id
                                        WHERE l.entry_id = e.id AND a.kind = 'fee_revenue') AS fee
             FROM journal_entries e WHERE e.kind = 'deposit_credit' AND e.reference = ANY($1::text[])`,
          [deposits.map((d) => d.depositId)],
        );
        const entryOf = new Map(stored.rows.map((row) => [row.reference, row]));
        expect(entryOf.size).toBe(stored.rowCount); // at most one entry per deposit
        // Deposits the calls disagree on (one misstated): a call naming one may be refused.
        const variants = new Map<string, Set<bigint>>();
        for (const c of calls) {
          for (const input of inputsOf(c)) {
            variants.set(input.depositId, (variants.get(input.depositId) ?? new Set()).add(input.feeUsdMicros));
          }
        }
        const disputed = (c: Call) => inputsOf(c).some((input) => (variants.get(input.depositId)?.size ?? 0) > 1);
        const committed = new Set<string>();
        outcomes.forEach((outcome, i) => {
          const c = calls[i] as Call;
          const inputs = inputsOf(c);
          if (outcome.status === "rejected") {
            const error = outcome.reason as Error;
            if (error.message === ROLLED_BACK) return;
            // Only a call naming a deposit the calls disagree on may be refused, and only as a conflict.
            expect(error).toBeInstanceOf(ConflictError);
            expect(disputed(c)).toBe(true);
            return;
          }
          for (const [position, result] of outcome.value.entries()) {
            const input = inputs[position] as DepositCreditInput;
            const entry = entryOf.get(input.depositId);
            expect(result.depositId).toBe(input.depositId);
            expect(result.entryId).toBe(entry?.id);
            expect(entry?.fee).toBe(input.feeUsdMicros.toString());
            committed.add(input.depositId);
          }
        });
        // Credited only by a call that committed.
        expect([...entryOf.keys()].sort()).toEqual([...committed].sort());
        const credited = deposits
          .filter((d) => entryOf.has(d.depositId))
          .reduce((sum, d) => sum + d.amountUsdMicros - BigInt(entryOf.get(d.depositId)?.fee ?? "0"), 0n);
        expect(await getMerchantBalance(t.db, m.merchantId)).toEqual({
          available: credited + (accountsOpen ? USD : 0n),
          reserved: 0n,
          held: 0n,
        });
        // Each deposit row names its entry and that entry's figures, as the indexer writes them in the
        // credit's transaction (a misstated credit that committed first is the deposit's figures).
        await t.db.query(
          `UPDATE deposits d SET credit_entry_id = e.id, fee_usd_micros = f.amount,
                  net_amount_usd_micros = d.amount_usd_micros - f.amount
             FROM journal_entries e
             JOIN journal_lines f ON f.entry_id = e.id
             JOIN ledger_accounts a ON a.id = f.account_id AND a.kind = 'fee_revenue'
            WHERE e.kind = 'deposit_credit' AND e.reference = d.id::text AND d.merchant_id = $1`,
          [m.merchantId],
        );
        const check = await checkLedger(t.db);
        expect(check.problems.filter((p) => p.includes(m.merchantId))).toEqual([]);
      }),
      { numRuns: 100 },
    );
  });
});
