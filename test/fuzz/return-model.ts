import { returnHeldDeposit } from "@mp/ledger";
import { createSandboxBankingProvider, SANDBOX_PAYOUT_MAGIC } from "@mp/providers";
import { executeTransfersOnce, sendDepositReturn } from "@mp/transfers";
import fc from "fast-check";
import { transferTreasury } from "../../services/payments/src/transfer-treasury.ts";
import { usBank } from "../api/transfers-bank-support.ts";
import { USDC_ON_BASE } from "../api/transfers-support.ts";
import { nextKey } from "../api/verification-fixtures.ts";
import { dieAtStatement, passDyingAt } from "./dying-database.ts";
import type { FaultCounts } from "./faulty-fetch.ts";
import { crashFields, type FuzzCase, faultRates, fuzzCase } from "./money-model.ts";
import { checkReturnStep, checkReturnsSettled, type ReturnCaseState } from "./return-invariants.ts";
import type { ReturnsWorld } from "./returns-world.ts";
import type { FuzzModel, FuzzOutcome } from "./run-money-fuzz.ts";
import { createSignerFleet, type SignerProcess } from "./signer-fleet.ts";

const USDC = 1_000_000n;
/** RETURN_NETWORK_FEE_USD: 1 USDC at the sandbox's rate. */
const RETURN_FEE = 1_000_000n;
/** What each transfer of a case asks its customer (USDC). */
const TRANSFER_USDC = "20";

/** Payments a case's customers make (USDC micros): one not worth more than the return's fee, ordinary ones. */
const PAYMENTS = [800_000n, 3n * USDC, 7_500_000n, 25n * USDC] as const;

/** What a returns fuzz step does around returns to payers on anvil. */
export type ReturnStep =
  /** The payer pays `micros` to a fresh address of the merchant whose customer is rejected: held once confirmed. */
  | { kind: "held"; micros: bigint }
  /** A crypto-funded transfer of the `return` merchant, canceled, then paid `micros` late. */
  | { kind: "late"; micros: bigint }
  /** A crypto-funded transfer paid `micros` more than it asks (the excess goes back). */
  | { kind: "excess"; micros: bigint }
  /** A crypto-funded transfer to a bank account the sandbox refuses, paid in full (the payment goes back). */
  | { kind: "failedPayout" }
  /** The operator's `deposits return` (its code path) on the `nth` held deposit, or on a payable return (resent under key #2). */
  | { kind: "return"; nth: number }
  /** The worker's transfer pass (policy returns taken, returns settled), twice at once at times; it dies at its `dieAt`-th statement (0: never). */
  | { kind: "work"; twice: boolean; dieAt: number }
  /** One pass of the leading send pipeline with this share of its node calls faulty. */
  | { kind: "tick"; faultRate: number }
  | { kind: "mine"; blocks: number }
  /** The last `depth` blocks replaced: our sends mined again or dropped, the customers' payments kept or dropped (a deep reorg reverses a credited, even returned, deposit). */
  | { kind: "reorg"; depth: number; ours: "remine" | "drop"; payments: "keep" | "drop" }
  /** The node refuses the leader's next broadcast for good (the return's send fails). */
  | { kind: "refuse" }
  /** The signer stops at its `atCall`-th node call of a pass and a new one leads (the old one dies there). */
  | { kind: "crash"; atCall: number; when: "before" | "after" };

export type ReturnCase = FuzzCase<ReturnStep>;

export function returnCase(): fc.Arbitrary<ReturnCase> {
  const payment = fc.constantFrom(...PAYMENTS);
  const { kind: crashKind, atCall, when } = crashFields(8);
  const step: fc.Arbitrary<ReturnStep> = fc.oneof(
    { weight: 2, arbitrary: fc.record({ kind: fc.constant("held" as const), micros: payment }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant("late" as const), micros: payment }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant("excess" as const), micros: payment }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant("failedPayout" as const) }) },
    { weight: 3, arbitrary: fc.record({ kind: fc.constant("return" as const), nth: fc.nat(5) }) },
    {
      weight: 3,
      arbitrary: fc.record({
        kind: fc.constant("work" as const),
        twice: fc.boolean(),
        dieAt: dieAtStatement(40),
      }),
    },
    { weight: 4, arbitrary: fc.record({ kind: fc.constant("tick" as const), faultRate: faultRates }) },
    { weight: 3, arbitrary: fc.record({ kind: fc.constant("mine" as const), blocks: fc.integer({ min: 1, max: 3 }) }) },
    {
      weight: 2,
      arbitrary: fc.record({
        kind: fc.constant("reorg" as const),
        depth: fc.integer({ min: 1, max: 4 }),
        ours: fc.constantFrom("remine" as const, "drop" as const),
        payments: fc.constantFrom("keep" as const, "drop" as const),
      }),
    },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant("refuse" as const) }) },
    { weight: 1, arbitrary: fc.record({ kind: crashKind, atCall, when }) },
  );
  return fuzzCase(step, 5, 12);
}

export interface ReturnOutcome extends FuzzOutcome {
  deposits: number;
  returned: number;
  payable: number;
}

/**
 * One returns case on anvil: the steps (customers paying, the operator returning, the worker's
 * passes, the signer's pipeline under faults, blocks, reorgs, crashes), checkReturnStep after each;
 * then settled (faults off, blocks, passes until no return is under way) and checkReturnsSettled.
 */
export async function runReturnCase(world: ReturnsWorld, c: ReturnCase): Promise<ReturnOutcome> {
  const { t, base } = world.started;
  const db = t.api.db;
  // The treasury's USDC for the case's returns and transfers' payouts.
  await base.pay(world.started.keys.key("evm").address, 200n * USDC);
  await world.catchUp();
  const startHeight = await base.head();
  const state: ReturnCaseState = { addresses: [] };
  /** The case's customers' payments (tx hashes), kept or dropped by a reorg. */
  const payments: string[] = [];
  const fleet = createSignerFleet({
    world: {
      db,
      chain: "BASE",
      broadcasts: world.broadcasts,
      sender: world.sender,
      confirmations: world.confirmations,
    },
    seed: c.faultSeed,
    leases: ["sender:BASE"],
  });
  /** Worker passes that died at their statement. */
  let deaths = 0;
  const bank = () => ({
    banking: createSandboxBankingProvider({ payoutDelayMs: 0 }),
    keyring: t.api.deps.encryption,
    returnCheckSeconds: 0,
  });
  const work = (on = db) =>
    executeTransfersOnce(on, transferTreasury, { bank: bank(), returnNetworkFeeUsdMicros: RETURN_FEE });
  const pay = async (to: string, micros: bigint) => {
    payments.push(await base.pay(to, micros));
    await world.catchUp();
  };
  /** A crypto-funded transfer of the `return` merchant: its id and funding address. */
  const transfer = async (destination?: unknown) => {
    const m = world.policyMerchant;
    const quote = await t.quote(m, world.policyCustomer, {
      source: USDC_ON_BASE,
      source_amount: TRANSFER_USDC,
      ...(destination ? { destination } : {}),
    });
    const created = (await t.transfer(m, quote.id)).body.data;
    const funding = await t.call(m, `/v1/transfers/${created.id}/funding`);
    const address = funding.body.data.intent.crypto_deposit.address as string;
    state.addresses.push(address);
    return { id: created.id as string, address };
  };

  await fleet.run(
    async () => {
      for (const step of c.steps) {
        if (step.kind === "held") {
          const address = await world.heldAddress();
          state.addresses.push(address);
          await pay(address, step.micros);
        } else if (step.kind === "late") {
          const { id, address } = await transfer();
          await t.call(world.policyMerchant, `/v1/transfers/${id}/cancel`, {
            method: "POST",
            idempotencyKey: nextKey("cancel"),
          });
          await pay(address, step.micros);
        } else if (step.kind === "excess") {
          const { address } = await transfer();
          await pay(address, 20n * USDC + step.micros);
        } else if (step.kind === "failedPayout") {
          const { address } = await transfer(usBank(`98765${SANDBOX_PAYOUT_MAGIC.failSuffix}`));
          await pay(address, 20n * USDC);
        } else if (step.kind === "return") {
          await operatorReturn(world, state, step.nth);
        } else if (step.kind === "work") {
          const passes: Promise<unknown>[] = [
            passDyingAt(db, step.dieAt, work).then((died) => {
              if (died) deaths++;
            }),
          ];
          if (step.twice) passes.push(work());
          await Promise.all(passes);
        } else if (step.kind === "mine") {
          await base.mine(step.blocks);
          await world.catchUp();
        } else if (step.kind === "reorg") {
          const depth = Math.min(step.depth, (await base.head()) - startHeight);
          if (depth >= 1) {
            const ours = step.ours === "remine" ? await ourTransactions(world) : [];
            const keep = [...ours, ...(step.payments === "drop" ? [] : payments)];
            await base.reorg(depth, await onChainIn(world, keep, depth));
            await world.catchUp();
          }
        } else {
          // A crash here never wakes: the old signer dies at that call.
          await fleet.step(
            step.kind === "crash" ? { ...step, loop: "pipeline", wakes: false } : { ...step, loop: "pipeline" },
          );
        }
        await checkReturnStep(world, state);
      }
    },
    async (leader) => {
      await settle(world, state, leader, work);
      await checkReturnsSettled(world, state);
    },
  );
  return outcome(world, state, c.steps.length, fleet.crashes + deaths, fleet.faults());
}

/**
 * `payments deposits return --deposit <id> --reason ...` as its command runs it (deposit-return-action.ts):
 * a held deposit refused and its return queued in one transaction, or a payable one sent again.
 */
async function operatorReturn(world: ReturnsWorld, state: ReturnCaseState, nth: number): Promise<void> {
  const db = world.started.t.api.db;
  const { rows } = await db.query<{ id: string; held: boolean }>(
    `SELECT d.id, d.hold_status = 'HELD' AS held FROM deposits d LEFT JOIN deposit_returns r ON r.deposit_id = d.id
      WHERE d.chain = 'BASE' AND d.to_address = ANY($1::text[]) AND d.status = 'CONFIRMED'
        AND (d.hold_status = 'HELD' OR r.state = 'payable')
      ORDER BY d.created_at, d.id`,
    [state.addresses],
  );
  const target = rows[nth % Math.max(rows.length, 1)];
  if (!target) return;
  await db.tx(async (c) => {
    if (target.held) await returnHeldDeposit(c, { depositId: target.id, reason: "KYC rejected (fuzz)" });
    await sendDepositReturn(
      c,
      { treasury: transferTreasury },
      { depositId: target.id, networkFeeUsdMicros: RETURN_FEE },
    );
  });
}

/** Every transaction of our treasury attempts. */
async function ourTransactions(world: ReturnsWorld): Promise<string[]> {
  const { rows } = await world.started.t.api.db.query<{ tx_hash: string }>(
    "SELECT DISTINCT tx_hash FROM treasury_attempts WHERE chain = 'BASE'",
  );
  return rows.map((r) => r.tx_hash);
}

/** Those of `hashes` mined in the last `depth` blocks: what a reorg of that depth may mine again. */
async function onChainIn(world: ReturnsWorld, hashes: readonly string[], depth: number): Promise<string[]> {
  const { base } = world.started;
  const lowest = (await base.head()) - depth + 1;
  const inThem: string[] = [];
  for (const hash of hashes) if (((await base.txHeight(hash)) ?? -1) >= lowest) inThem.push(hash);
  return inThem;
}

/** Faults off: the pipeline, blocks, the indexer and the worker until no return of the case is under way. */
async function settle(
  world: ReturnsWorld,
  state: ReturnCaseState,
  leader: SignerProcess<"pipeline">,
  work: () => Promise<unknown>,
): Promise<void> {
  const db = world.started.t.api.db;
  leader.links.pipeline.setRate(0);
  const deadline = Date.now() + 120_000;
  for (;;) {
    await leader.loops.pipeline.tick("BASE").catch(() => undefined);
    await world.started.base.mine(1);
    await world.catchUp();
    await work();
    await checkReturnStep(world, state);
    const { rows } = await db.query<{ open: number }>(
      `SELECT count(*)::int AS open FROM deposits d
         LEFT JOIN deposit_returns r ON r.deposit_id = d.id
        WHERE d.chain = 'BASE' AND d.to_address = ANY($1::text[])
          AND (d.status = 'PENDING' OR r.state = 'sending'
               OR EXISTS (SELECT 1 FROM treasury_sends s WHERE s.state NOT IN ('confirmed', 'failed')
                            AND s.idempotency_key LIKE 'deposit-return:' || d.id || '%'))`,
      [state.addresses],
    );
    if ((rows[0]?.open ?? 0) === 0) return;
    if (Date.now() > deadline) throw new Error(`returns never settled: ${rows[0]?.open} open`);
  }
}

async function outcome(
  world: ReturnsWorld,
  state: ReturnCaseState,
  steps: number,
  crashes: number,
  faults: FaultCounts,
): Promise<ReturnOutcome> {
  const { rows } = await world.started.t.api.db.query<{ state: string | null }>(
    `SELECT r.state FROM deposits d LEFT JOIN deposit_returns r ON r.deposit_id = d.id
      WHERE d.chain = 'BASE' AND d.to_address = ANY($1::text[])`,
    [state.addresses],
  );
  return {
    steps,
    deposits: rows.length,
    returned: rows.filter((r) => r.state === "returned").length,
    payable: rows.filter((r) => r.state === "payable").length,
    crashes,
    faults,
  };
}

/** The returns' fuzz model (evm-returns-money-fuzz.test.ts runs it on anvil). */
export const returnFuzz: FuzzModel<ReturnsWorld, ReturnCase, ReturnOutcome> = {
  caseOf: returnCase,
  run: runReturnCase,
  describe: (t) => `${t.deposits} deposits (${t.returned} returned to their payer, ${t.payable} still payable)`,
  caseMs: 180_000,
};
