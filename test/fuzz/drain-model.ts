import { SANDBOX_PAYOUT_MAGIC } from "@mp/providers";
import { executeTransfersOnce, sendDepositReturn } from "@mp/transfers";
import fc from "fast-check";
import { transferTreasury } from "../../services/payments/src/transfer-treasury.ts";
import { usBank } from "../api/transfers-bank-support.ts";
import { PAYEE } from "../api/transfers-support.ts";
import { drainerOf, liquidationSteps, sandboxPayoutBank } from "../liquidation/drain-support.ts";
import { checkDrainStep, checkDrainsSettled, type DrainCaseState, merchantHeld } from "./drain-invariants.ts";
import { dieAtStatement, passDyingAt } from "./dying-database.ts";
import { noFaults } from "./faulty-fetch.ts";
import { type FuzzCase, fuzzCase } from "./money-model.ts";
import type { FuzzModel, FuzzOutcome } from "./run-money-fuzz.ts";
import type { TransfersFuzzWorld } from "./transfers-fuzz-world.ts";

const USD = 1_000_000n;
/** The payer's refund address some of a case's liquidation addresses name. */
const RETURN_TO = "0x00000000000000000000000000000000000000cc";
/** The sandbox bank's payouts complete this long after they start, on the case's clock. */
const PAYOUT_DELAY_MS = 60_000;
/** The product's fee: 1 USD a drain, so the smallest deposits are below the minimum. */
const DRAIN_FEE = 1n * USD;
/** RETURN_NETWORK_FEE_USD: a return of 1 USD or less stays payable. */
const RETURN_FEE = 1n * USD;
/** TRAVEL_RULE_THRESHOLD_USD, low: a large crypto drain needs the beneficiary its address lacks (fails). */
const TRAVEL_RULE = 50n * USD;

/**
 * A case's liquidation addresses: a bank account paid, one whose bank refuses every payout, a
 * crypto address (whose treasury send the signer may fail), with or without a return_address.
 */
const ADDRESSES = [
  { destination: usBank("000123456789"), returnAddress: undefined },
  { destination: usBank(`98765${SANDBOX_PAYOUT_MAGIC.failSuffix}`), returnAddress: RETURN_TO },
  { destination: { type: "CRYPTO_ADDRESS", network: "BASE", asset: "USDC", address: PAYEE }, returnAddress: RETURN_TO },
  { destination: { type: "CRYPTO_ADDRESS", network: "BASE", asset: "USDC", address: PAYEE }, returnAddress: undefined },
] as const;

/** USDC micros: below the minimum (0.5, 1.5), ordinary, above the travel rule threshold. */
const AMOUNTS = [500_000n, 1_500_000n, 2_500_000n, 30n * USD, 80n * USD, 250n * USD] as const;

/** What a drain fuzz step does around the drainer, the transfer executor, the signer and the bank. */
export type DrainStep =
  /** A customer pays `micros` USDC to the case's `address`-th liquidation address (the indexer records it). */
  | { kind: "deposit"; address: number; micros: bigint }
  /** The indexer's confirmation step: every pending deposit credited. */
  | { kind: "confirm" }
  /** `drainers` drainer passes at once (two worker processes); the first dies at its `dieAt`-th statement (0: never). */
  | { kind: "drain"; drainers: 1 | 2; dieAt: number }
  /** A transfer executor pass (bank payouts, treasury sends, returns settled); it dies at its `dieAt`-th statement (0: never). */
  | { kind: "execute"; dieAt: number }
  /** The bank's clock moves on (payouts complete after PAYOUT_DELAY_MS). */
  | { kind: "clock" }
  /** The signer's pipeline ends the `nth` open treasury send (a drain's payout or a return): confirmed, or failed for good. */
  | { kind: "send"; nth: number; outcome: "confirmed" | "failed" }
  /** An operator's `deposits return` on the `nth` payable return (after a failed send: resent under key #2). */
  | { kind: "resend"; nth: number };

export type DrainCase = FuzzCase<DrainStep>;

const dieAt = dieAtStatement(40);

export function drainCase(): fc.Arbitrary<DrainCase> {
  const step: fc.Arbitrary<DrainStep> = fc.oneof(
    {
      weight: 4,
      arbitrary: fc.record({
        kind: fc.constant("deposit" as const),
        address: fc.integer({ min: 0, max: ADDRESSES.length - 1 }),
        micros: fc.constantFrom(...AMOUNTS),
      }),
    },
    { weight: 2, arbitrary: fc.record({ kind: fc.constant("confirm" as const) }) },
    {
      weight: 4,
      arbitrary: fc.record({
        kind: fc.constant("drain" as const),
        drainers: fc.constantFrom(1 as const, 2 as const),
        dieAt,
      }),
    },
    { weight: 3, arbitrary: fc.record({ kind: fc.constant("execute" as const), dieAt }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant("clock" as const) }) },
    {
      weight: 3,
      arbitrary: fc.record({
        kind: fc.constant("send" as const),
        nth: fc.nat(5),
        outcome: fc.constantFrom("confirmed" as const, "failed" as const),
      }),
    },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant("resend" as const), nth: fc.nat(5) }) },
  );
  return fuzzCase(step, 6, 16);
}

/** The drains' world: the in-process API (no chain node: the signer's sends are ended by the steps) and the merchant's bank customer. */
export interface DrainWorld extends TransfersFuzzWorld {
  customerId: string;
}

export interface DrainOutcome extends FuzzOutcome {
  deposits: number;
  paid: number;
  refunded: number;
  kept: number;
}

/** The open treasury sends of the case's drains (their transfers') and returns (their deposits'), oldest first. */
async function openSends(world: DrainWorld, state: DrainCaseState): Promise<string[]> {
  const { rows } = await world.t.api.db.query<{ id: string }>(
    `SELECT s.id FROM treasury_sends s
      WHERE s.state NOT IN ('confirmed', 'failed')
        AND (s.idempotency_key IN (SELECT ld.transfer_id::text FROM liquidation_drains ld WHERE ld.deposit_id = ANY($1::uuid[]))
             OR (s.purpose = 'return' AND split_part(substr(s.idempotency_key, 16), '#', 1) = ANY($2::text[])))
      ORDER BY s.created_at, s.id`,
    [state.deposits.map((d) => d.id), state.deposits.map((d) => d.id)],
  );
  return rows.map((r) => r.id);
}

/** The signer's pipeline ends send `id` as the chain did (no node here: as the transfers fuzz does). */
async function endSend(world: DrainWorld, id: string, outcome: "confirmed" | "failed"): Promise<void> {
  await world.t.api.db.query(
    `UPDATE treasury_sends SET state = $2, confirmed_at = CASE WHEN $2 = 'confirmed' THEN now() END,
            reason = CASE WHEN $2 = 'failed' THEN 'refused by the node for good (fuzz)' END
      WHERE id = $1`,
    [id, outcome],
  );
}

/**
 * One drain case: fresh liquidation addresses (ADDRESSES), then the steps, the invariants of
 * checkDrainStep after each; then settled (every open send confirmed, the bank's clock on, passes of
 * the executor and the drainer until nothing moves) and checkDrainsSettled.
 */
export async function runDrainCase(world: DrainWorld, c: DrainCase): Promise<DrainOutcome> {
  const { t, merchant, customerId } = world;
  const db = t.api.db;
  const steps = liquidationSteps(t, merchant, customerId);
  const addressIds: string[] = [];
  for (const a of ADDRESSES) addressIds.push((await steps.create(a.destination, a.returnAddress)).id);
  const start = await merchantHeld(db, merchant.merchantId);
  const state: DrainCaseState = {
    merchantId: merchant.merchantId,
    addressIds,
    deposits: [],
    heldAtStart: start.available + start.reserved,
  };
  let skew = 0;
  let crashes = 0;
  const bank = () => sandboxPayoutBank(t.api, PAYOUT_DELAY_MS, () => new Date(Date.now() + skew));
  const returns = { treasury: transferTreasury, networkFeeUsdMicros: RETURN_FEE };
  const drainer = (on = db) =>
    drainerOf(
      { ...t.api, db: on },
      { feeFixedUsdMicros: DRAIN_FEE, travelRuleThresholdUsdMicros: TRAVEL_RULE, returns },
    );
  const execute = (on = db) =>
    executeTransfersOnce(on, transferTreasury, { bank: bank(), returnNetworkFeeUsdMicros: RETURN_FEE });
  const dying = async (at: number, pass: (on: typeof db) => Promise<unknown>) => {
    if (await passDyingAt(db, at, pass)) crashes++;
  };

  for (const step of c.steps) {
    if (step.kind === "deposit") {
      const id = await steps.deposit({ id: addressIds[step.address] as string }, step.micros);
      state.deposits.push({ id, addressIndex: step.address, micros: step.micros });
    } else if (step.kind === "confirm") {
      await steps.confirm();
    } else if (step.kind === "drain") {
      const passes: Promise<unknown>[] = [dying(step.dieAt, (on) => drainer(on)())];
      if (step.drainers === 2) passes.push(drainer()());
      await Promise.all(passes);
    } else if (step.kind === "execute") {
      await dying(step.dieAt, execute);
    } else if (step.kind === "clock") {
      skew += PAYOUT_DELAY_MS / 2;
    } else if (step.kind === "send") {
      const open = await openSends(world, state);
      const id = open[step.nth % Math.max(open.length, 1)];
      if (id) await endSend(world, id, step.outcome);
    } else {
      await resendPayable(world, state, step.nth);
    }
    await checkDrainStep(db, state);
  }
  await settle(world, state, {
    steps,
    drain: () => drainer()(),
    execute: () => execute(),
    later: () => {
      skew += PAYOUT_DELAY_MS;
    },
  });
  await checkDrainsSettled(db, state);
  return outcome(world, state, c.steps.length, crashes);
}

/** `deposits return` (its code path: sendDepositReturn in one transaction) on the `nth` payable return of the case worth more than its fee. */
async function resendPayable(world: DrainWorld, state: DrainCaseState, nth: number): Promise<void> {
  const db = world.t.api.db;
  const { rows } = await db.query<{ deposit_id: string }>(
    `SELECT deposit_id FROM deposit_returns WHERE deposit_id = ANY($1::uuid[]) AND state = 'payable'
      ORDER BY created_at, deposit_id`,
    [state.deposits.map((d) => d.id)],
  );
  const target = rows[nth % Math.max(rows.length, 1)];
  if (!target) return;
  await db.tx((c) =>
    sendDepositReturn(
      c,
      { treasury: transferTreasury },
      { depositId: target.deposit_id, networkFeeUsdMicros: RETURN_FEE },
    ),
  );
}

/** Faults off: the signer confirms what is open, the bank's clock runs, passes until every drain and return is done. */
async function settle(
  world: DrainWorld,
  state: DrainCaseState,
  loops: {
    steps: ReturnType<typeof liquidationSteps>;
    drain: () => Promise<unknown>;
    execute: () => Promise<unknown>;
    later: () => void;
  },
): Promise<void> {
  const db = world.t.api.db;
  const deadline = Date.now() + 60_000;
  await loops.steps.confirm();
  for (;;) {
    for (const id of await openSends(world, state)) await endSend(world, id, "confirmed");
    loops.later();
    await loops.execute();
    await loops.drain();
    await checkDrainStep(db, state);
    const { rows } = await db.query<{ moving: number }>(
      `SELECT (SELECT count(*) FROM liquidation_drains ld WHERE ld.deposit_id = ANY($1::uuid[])
                 AND (ld.state IN ('awaiting_funds', 'payment_submitted')
                      OR (ld.state IN ('failed', 'not_paid') AND EXISTS (SELECT 1 FROM journal_entries p
                           WHERE p.kind = 'policy_return' AND p.reference = ld.deposit_id::text)
                          AND NOT EXISTS (SELECT 1 FROM deposit_returns r WHERE r.deposit_id = ld.deposit_id AND r.state = 'payable'))))
            + (SELECT count(*) FROM deposit_returns r WHERE r.deposit_id = ANY($1::uuid[]) AND r.state = 'sending')
            + (SELECT count(*) FROM treasury_sends s WHERE s.state NOT IN ('confirmed', 'failed') AND s.purpose = 'return'
                 AND split_part(substr(s.idempotency_key, 16), '#', 1) = ANY($2::text[])) AS moving`,
      [state.deposits.map((d) => d.id), state.deposits.map((d) => d.id)],
    );
    if (Number(rows[0]?.moving ?? 0) === 0) return;
    if (Date.now() > deadline) {
      const drains = await db.query(
        "SELECT deposit_id, state, last_error FROM liquidation_drains WHERE deposit_id = ANY($1::uuid[])",
        [state.deposits.map((d) => d.id)],
      );
      throw new Error(`drains never settled: ${JSON.stringify(drains.rows)}`);
    }
  }
}

async function outcome(
  world: DrainWorld,
  state: DrainCaseState,
  steps: number,
  crashes: number,
): Promise<DrainOutcome> {
  const { rows } = await world.t.api.db.query<{ state: string }>(
    "SELECT state FROM liquidation_drains WHERE deposit_id = ANY($1::uuid[])",
    [state.deposits.map((d) => d.id)],
  );
  const count = (s: string) => rows.filter((r) => r.state === s).length;
  return {
    steps,
    deposits: state.deposits.length,
    paid: count("payment_processed"),
    refunded: count("refunded"),
    kept: count("failed") + count("not_paid"),
    crashes,
    faults: noFaults(),
  };
}

/** The liquidation drainer's fuzz model (liquidation-drains-money-fuzz.test.ts runs it on the in-process API). */
export const drainFuzz: FuzzModel<DrainWorld, DrainCase, DrainOutcome> = {
  caseOf: drainCase,
  run: runDrainCase,
  describe: (t) =>
    `${t.deposits} deposits drained (${t.paid} paid out, ${t.refunded} sent to their return_address, ` +
    `${t.kept} kept on the merchant's balance or payable)`,
  caseMs: 120_000,
};
