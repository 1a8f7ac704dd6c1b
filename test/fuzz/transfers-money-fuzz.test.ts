import { createTreasuryKeys } from "@mp/custody";
import { executeTransfersOnce } from "@mp/transfers";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { KEY_SCHEMES } from "../../services/payments/src/chain-families.ts";
import { transferTreasury } from "../../services/payments/src/transfer-treasury.ts";
import { chainsOnNoNode } from "../api/chains-on-no-node.ts";
import { PAYEE, startTransfersApi, type TransfersApi } from "../api/transfers-support.ts";
import { nextKey } from "../api/verification-fixtures.ts";
import type { TestMerchant } from "../support/api-harness.ts";
import { fuzzParameters } from "./fuzz-parameters.ts";

/** A regtest Bitcoin address that is not the treasury's. */
const BTC_PAYEE = createTreasuryKeys("legal winner thank year wave sausage worth useful legal winner thank yellow", {
  bitcoinNetwork: "regtest",
  schemes: KEY_SCHEMES,
}).key("bitcoin").address;

const DESTINATIONS = {
  usdc: { type: "CRYPTO_ADDRESS", asset: "USDC", network: "BASE", address: PAYEE },
  btc: { type: "CRYPTO_ADDRESS", asset: "BTC", network: "BITCOIN", address: BTC_PAYEE },
} as const;

type TransferStep =
  /** A BALANCE transfer of merchant `m` (USD source amount), hostile at times: tiny, more than it holds, not a number. */
  | { kind: "transfer"; m: 0 | 1; amount: string; to: keyof typeof DESTINATIONS }
  /** One executor pass, or two at once (two worker processes). */
  | { kind: "execute"; concurrent: boolean }
  /** The signer's pipeline settles the `nth` open send: confirmed on chain, or failed for good. */
  | { kind: "send"; nth: number; outcome: "confirmed" | "failed" };

const step: fc.Arbitrary<TransferStep> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant("transfer" as const),
      m: fc.constantFrom(0 as const, 1 as const),
      amount: fc.constantFrom("0.01", "0.07", "1.00", "20.00", "120.00", "1000000.00", "-5.00", "0"),
      to: fc.constantFrom("usdc" as const, "btc" as const),
    }),
  },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant("execute" as const), concurrent: fc.boolean() }) },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant("send" as const),
      nth: fc.nat(5),
      outcome: fc.constantFrom("confirmed" as const, "failed" as const),
    }),
  },
);

const TERMINAL = new Set(["COMPLETED", "FAILED"]);

/**
 * Issue 27: the transfer executor with two merchants side by side, one of them hostile at times
 * (amounts below a chain's minimum, above its balance, not positive), passes running twice at once,
 * and the signer's sends ending either way. After every step: `ledger check` clean, no merchant's
 * available balance below zero (holds never exceed what was received), a transfer at most one send
 * (paid at most once), a terminal transfer never moves again, a COMPLETED one's send confirmed and a
 * FAILED one's never. Settled (every open send confirmed, passes until done): every transfer of
 * both merchants ends in one terminal state, whatever the other did.
 */
describe("money fuzz: the transfer executor, two merchants", () => {
  let t: TransfersApi;
  const merchants: TestMerchant[] = [];
  const customers: string[] = [];
  const params = fuzzParameters("transfers", 4);

  beforeAll(async () => {
    t = await startTransfersApi({ chains: chainsOnNoNode(["BASE", "BITCOIN"]) });
    for (let i = 0; i < 2; i++) {
      const m = await t.api.merchant();
      const customer = await t.bankCustomer(m);
      expect((await t.credit(m, customer.virtualAccountId, "5000")).status).toBe(201);
      merchants.push(m);
      customers.push(customer.customerId);
    }
  }, 120_000);
  afterAll(() => t?.stop());

  interface Row {
    id: string;
    merchant_id: string;
    status: string;
    sends: number;
    send_state: string | null;
  }
  const transfers = async (ids: readonly string[]): Promise<Row[]> =>
    (
      await t.api.db.query<Row>(
        `SELECT tr.id, tr.merchant_id, tr.status,
                (SELECT count(*)::int FROM treasury_sends s WHERE s.idempotency_key = tr.id::text AND s.purpose = 'transfer') AS sends,
                (SELECT s.state FROM treasury_sends s WHERE s.idempotency_key = tr.id::text AND s.purpose = 'transfer' LIMIT 1) AS send_state
           FROM transfers tr WHERE tr.id = ANY($1::uuid[]) ORDER BY tr.created_at, tr.id`,
        [[...ids]],
      )
    ).rows;

  const create = async (s: Extract<TransferStep, { kind: "transfer" }>): Promise<string | null> => {
    const m = merchants[s.m] as TestMerchant;
    const quote = await t.call(m, "/v1/quotes", {
      method: "POST",
      idempotencyKey: nextKey("quote"),
      json: {
        customer_id: customers[s.m],
        source: { method: "BALANCE" },
        destination: DESTINATIONS[s.to],
        source_amount: s.amount,
      },
    });
    // A hostile amount is refused with a typed 4xx, never a 5xx.
    expect(quote.status, quote.text).toBeLessThan(500);
    if (quote.status !== 201) return null;
    const created = await t.transfer(m, quote.body.data.id);
    expect(created.status, created.text).toBeLessThan(500);
    return created.status === 201 ? (created.body.data.id as string) : null;
  };

  const checkEveryStep = async (ids: readonly string[], seen: Map<string, string>) => {
    await t.expectLedgerClean();
    for (const m of merchants) expect(Number((await t.balance(m)).available)).toBeGreaterThanOrEqual(0);
    for (const row of await transfers(ids)) {
      expect(row.sends, `transfer ${row.id}: sends`).toBeLessThanOrEqual(1);
      const before = seen.get(row.id);
      if (before && TERMINAL.has(before)) expect(row.status, `transfer ${row.id} left ${before}`).toBe(before);
      if (row.status === "COMPLETED") expect(row.send_state).toBe("confirmed");
      if (row.status === "FAILED") expect(row.send_state).not.toBe("confirmed");
      seen.set(row.id, row.status);
    }
  };

  it(
    "every transfer of either merchant ends once, paid at most once; balances never below zero; ledger clean",
    async () => {
      let cases = 0;
      let created = 0;
      const ended = { COMPLETED: 0, FAILED: 0 };
      const startedAt = Date.now();
      await fc.assert(
        fc.asyncProperty(fc.array(step, { minLength: 4, maxLength: 14 }), async (steps) => {
          const ids: string[] = [];
          const seen = new Map<string, string>();
          for (const s of steps) {
            if (s.kind === "transfer") {
              const id = await create(s);
              if (id) ids.push(id);
            } else if (s.kind === "execute") {
              const passes = s.concurrent ? 2 : 1;
              await Promise.all(Array.from({ length: passes }, () => executeTransfersOnce(t.api.db, transferTreasury)));
            } else {
              const open = (await transfers(ids)).filter(
                (r) => r.send_state !== null && r.send_state !== "confirmed" && r.send_state !== "failed",
              );
              const target = open[s.nth % Math.max(open.length, 1)];
              if (target) {
                await t.api.db.query(
                  `UPDATE treasury_sends SET state = $2, confirmed_at = CASE WHEN $2 = 'confirmed' THEN now() END,
                          reason = CASE WHEN $2 = 'failed' THEN 'refused by the node (fuzz)' END
                    WHERE idempotency_key = $1 AND purpose = 'transfer'`,
                  [target.id, s.outcome],
                );
              }
            }
            await checkEveryStep(ids, seen);
          }
          // Settle: the pipeline confirms what is open, the executor runs until every transfer is done.
          const deadline = Date.now() + 60_000;
          for (;;) {
            await t.api.db.query(
              `UPDATE treasury_sends SET state = 'confirmed', confirmed_at = now()
                WHERE idempotency_key = ANY($1::text[]) AND purpose = 'transfer' AND state NOT IN ('confirmed', 'failed')`,
              [ids],
            );
            await executeTransfersOnce(t.api.db, transferTreasury);
            await checkEveryStep(ids, seen);
            const rows = await transfers(ids);
            const open = rows.filter((r) => !TERMINAL.has(r.status));
            if (open.length === 0) {
              for (const r of rows) ended[r.status as keyof typeof ended]++;
              break;
            }
            expect(Date.now() < deadline, `transfers never ended: ${JSON.stringify(open)}`).toBe(true);
          }
          cases++;
          created += ids.length;
        }),
        params,
      );
      process.stdout.write(
        `money fuzz transfers: ${cases} cases held every invariant in ${((Date.now() - startedAt) / 1000).toFixed(1)} s: ` +
          `${created} transfers (${ended.COMPLETED} completed, ${ended.FAILED} failed)\n`,
      );
      expect(cases).toBe(params.numRuns);
    },
    params.numRuns * 120_000,
  );
});
