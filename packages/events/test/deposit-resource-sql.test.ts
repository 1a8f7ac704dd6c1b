import { CHAIN_IDS, type ChainId } from "@mp/core";
import { createTestDatabase, type TestDatabase } from "@mp/db/testing";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEPOSIT_STATUSES, type DepositRow, depositResource, HOLD_STATUSES, toDepositResource } from "../src/index.ts";

let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase();
});
afterAll(async () => {
  await t?.drop();
});

/** Text PostgreSQL can hold (no NUL), quotes, backslashes and any other character included. */
const text = fc.string({ unit: "binary", maxLength: 24 }).map((s) => s.replaceAll("\u0000", ""));
const integer = (max: bigint) => fc.bigInt({ min: 0n, max }).map(String);
const uuid = fc.uuid({ version: 4 });
/** Milliseconds from 1970 to 9999 (timestamp(3) columns: what the API answers in toISOString's form). */
const at = fc.integer({ min: 0, max: 253_402_300_799_999 }).map((ms) => new Date(ms));

const row: fc.Arbitrary<DepositRow> = fc.record({
  id: uuid,
  merchant_id: uuid,
  wallet_id: uuid,
  customer_id: fc.option(uuid, { nil: null }),
  chain: fc.constantFrom<ChainId>(...CHAIN_IDS),
  asset: text,
  contract_address: fc.option(text, { nil: null }),
  from_address: fc.option(text, { nil: null }),
  to_address: text,
  tx_hash: text,
  block_height: integer(2n ** 53n - 1n),
  decimals: fc.integer({ min: 0, max: 30 }),
  // numeric(78, 0): up to 10^78 - 1.
  amount_raw: fc.oneof(integer(10_000n), integer(10n ** 78n - 1n)),
  required_confirmations: fc.integer({ min: 1, max: 1_000 }),
  status: fc.constantFrom(...DEPOSIT_STATUSES),
  hold_status: fc.option(fc.constantFrom(...HOLD_STATUSES), { nil: null }),
  held_reason: fc.option(fc.constantFrom("customer_rejected" as const, "sanctions_match" as const), { nil: null }),
  usd_rate: fc.option(text, { nil: null }),
  // numeric(30, 0) micro-dollars.
  amount_usd_micros: fc.option(fc.oneof(integer(10_000_000n), integer(10n ** 30n - 1n)), { nil: null }),
  fee_usd_micros: fc.option(integer(10n ** 30n - 1n), { nil: null }),
  net_amount_usd_micros: fc.option(integer(10n ** 30n - 1n), { nil: null }),
  confirmed_at: fc.option(at, { nil: null }),
  reversed_at: fc.option(at, { nil: null }),
  awaiting_rate_since: fc.option(at, { nil: null }),
  created_at: at,
});

/** A chain's head: none yet, near the deposit's block (below, at or above it), or far past it. */
const head = fc.option(fc.integer({ min: 0, max: 2 ** 53 - 1 }), { nil: null });

/** deposit_resource (migrations/0390) of `deposit` as a row of the deposits table, parsed by pg. */
async function renderedInSql(deposit: DepositRow, headHeight: number | null): Promise<unknown> {
  const { rows } = await t.db.query<{ data: unknown }>(
    "SELECT deposit_resource(jsonb_populate_record(NULL::deposits, $1::jsonb), $2::bigint) AS data",
    [JSON.stringify(deposit), headHeight],
  );
  return rows[0]?.data;
}

describe("deposit_resource, the deposit's API form rendered in SQL for its events", () => {
  it("equals toDepositResource on random rows and heads (both engines)", async () => {
    await fc.assert(
      fc.asyncProperty(row, head, fc.integer({ min: -3, max: 3 }), async (deposit, far, near) => {
        // Half the heads near the block, where the confirmation rules' edges are.
        const headHeight = far === null ? null : near % 2 === 0 ? Number(deposit.block_height) + near : far;
        const heads = new Map<ChainId, number>(headHeight === null ? [] : [[deposit.chain, headHeight]]);
        const inTypeScript = toDepositResource(deposit, heads);
        expect(await renderedInSql(deposit, headHeight)).toEqual(inTypeScript);
      }),
      { numRuns: 300 },
    );
  });

  it("renders amounts as unitsToDecimal does: six fractional digits at least, more only where not zero", async () => {
    const deposit = fc.sample(row, { numRuns: 1, seed: 33 })[0] as DepositRow;
    const cases: Array<[string, number, string]> = [
      ["0", 0, "0.000000"],
      ["0", 18, "0.000000"],
      ["7", 0, "7.000000"],
      ["12500000", 6, "12.500000"],
      ["123", 18, "0.000000000000000123"],
      ["1000000000000000000", 18, "1.000000"],
      ["1234567", 2, "12345.670000"],
      ["100000001", 8, "1.00000001"],
    ];
    for (const [raw, decimals, amount] of cases) {
      const rendered = (await renderedInSql({ ...deposit, amount_raw: raw, decimals }, null)) as { amount: string };
      expect([raw, decimals, rendered.amount]).toEqual([raw, decimals, amount]);
    }
  });

  it("answers the schema the API documents", async () => {
    const [deposit] = fc.sample(row, { numRuns: 1, seed: 7 });
    const rendered = await renderedInSql({ ...(deposit as DepositRow), held_reason: null, hold_status: null }, 10);
    expect(depositResource.parse(rendered)).toEqual(rendered);
  });
});
