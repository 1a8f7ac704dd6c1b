import assert from "node:assert/strict";
import { checkLedger } from "@mp/ledger";
import { reconcileChains, requestSend } from "@mp/treasury";
import fc from "fast-check";
import { sendCheckOf } from "../../services/payments/src/chain-families.ts";
import { registerLedgerChecks } from "../../services/payments/src/ledger-checks.ts";
import type { MoneyWorld, ReorgFate } from "./money-world.ts";
import type { FuzzModel, FuzzOutcome } from "./run-money-fuzz.ts";
import { createSignerFleet, type SignerProcess } from "./signer-fleet.ts";

/** What a fuzz step does to the world around a chain's send pipeline. */
export type MoneyStep =
  /** A send request; `amount` is a hostile one at times: refused at the edge, more than the treasury has. */
  | { kind: "send"; amount: bigint }
  /** One pass of the leading pipeline with this share of its node calls faulty. */
  | { kind: "tick"; faultRate: number }
  | ChainStep
  /** The node refuses the leader's next broadcast for good (those bytes never land, whoever sends them). */
  | { kind: "refuse" }
  /**
   * The leader stops at its `atCall`-th node call of a pass (before or after the node acted), its
   * lease lapses and a new pipeline over the same database leads; the old one either dies there or
   * (`wakes`) goes on with its pass after the new leader's next pass: a deposed leader waking up.
   */
  | { kind: "crash"; atCall: number; when: "before" | "after"; wakes: boolean };

/** A fuzz case of any model: the seed of its faults (node links, the bank) and its steps. */
export interface FuzzCase<S> {
  faultSeed: number;
  steps: S[];
}

export type MoneyCase = FuzzCase<MoneyStep>;

/** The steps the chain itself takes, whatever loops a fuzz drives: blocks, held mempools, reorgs (weighted). */
export const chainSteps = [
  { weight: 3, arbitrary: fc.record({ kind: fc.constant("mine" as const), blocks: fc.integer({ min: 1, max: 3 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("hold" as const), on: fc.boolean() }) },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant("reorg" as const),
      depth: fc.integer({ min: 1, max: 4 }),
      ours: fc.constantFrom("remine" as const, "mempool" as const, "drop" as const),
      longer: fc.boolean(),
    }),
  },
];

/** A step the chain itself takes (chainSteps). */
export type ChainStep =
  | { kind: "mine"; blocks: number }
  /** Miners leave pending transactions out (sends get stuck, replaced) or take them again. */
  | { kind: "hold"; on: boolean }
  /** The last `depth` blocks replaced; our transactions in them mined again, back to the mempool, or dropped. */
  | { kind: "reorg"; depth: number; ours: ReorgFate; longer: boolean };

export function isChainStep(step: { kind: string }): step is ChainStep {
  return step.kind === "mine" || step.kind === "hold" || step.kind === "reorg";
}

/**
 * Takes a chain step on `world`, the same in every model that drives a MoneyWorld: only this case's
 * blocks (above `startHeight`) are reorganised, so what came before it (the funding) stays.
 */
export async function runChainStep(
  world: Pick<MoneyWorld, "db" | "chain" | "height" | "txHeight" | "mine" | "hold" | "reorg">,
  step: ChainStep,
  startHeight: number,
): Promise<void> {
  if (step.kind === "mine") {
    await world.mine(step.blocks);
  } else if (step.kind === "hold") {
    await world.hold(step.on);
  } else {
    const depth = Math.min(step.depth, (await world.height()) - startHeight);
    if (depth >= 1) await world.reorg(depth, await ourTransactionsIn(world, depth), step.ours, step.longer);
  }
}

/** How often a tick's node calls fail: mostly never, at times some, at times all. */
export const faultRates = fc.constantFrom(0, 0, 0.2, 0.5, 1);

/** The fields of a crash step: a process stops at its `atCall`-th node call (of at most `maxCall`), waking again or not. */
export function crashFields(maxCall: number) {
  return {
    kind: fc.constant("crash" as const),
    atCall: fc.integer({ min: 1, max: maxCall }),
    when: fc.constantFrom("before" as const, "after" as const),
    wakes: fc.boolean(),
  };
}

/** A case: the seed of its faults and `minLength` to `maxLength` steps. */
export function fuzzCase<S>(step: fc.Arbitrary<S>, minLength: number, maxLength: number): fc.Arbitrary<FuzzCase<S>> {
  return fc.record({
    faultSeed: fc.integer({ min: 0, max: 2 ** 31 - 1 }),
    steps: fc.array(step, { minLength, maxLength }),
  });
}

/** The cases of one world: its amounts, hostile ones among them. */
export function moneyCase(world: Pick<MoneyWorld, "amounts" | "refused" | "hostile">): fc.Arbitrary<MoneyCase> {
  const { min, max, unaffordable } = world.amounts;
  const step: fc.Arbitrary<MoneyStep> = fc.oneof(
    {
      weight: 4,
      arbitrary: fc.record({
        kind: fc.constant("send" as const),
        amount: fc.oneof(
          { weight: 6, arbitrary: fc.bigInt({ min, max }) },
          { weight: 1, arbitrary: fc.constantFrom(...world.refused, ...world.hostile) },
          { weight: 1, arbitrary: fc.constant(unaffordable) },
        ),
      }),
    },
    {
      weight: 5,
      arbitrary: fc.record({ kind: fc.constant("tick" as const), faultRate: faultRates }),
    },
    ...chainSteps,
    { weight: 1, arbitrary: fc.record({ kind: fc.constant("refuse" as const) }) },
    { weight: 2, arbitrary: fc.record(crashFields(8)) },
  );
  return fuzzCase(step, 6, 18);
}

interface CaseSend {
  id: string;
  to: string;
  amount: bigint;
  /** States seen after each step, in order. */
  states: string[];
}

export interface CaseOutcome extends FuzzOutcome {
  sends: number;
  confirmed: number;
  failed: number;
  waitingFunds: number;
}

/**
 * One fuzz case on a chain's send pipeline (its test node, the real indexer recording the
 * treasury's receipts). After every step: no send paid more than it asked on the active chain, a
 * failed send paid nothing and stays failed. After the steps the world settles (faults off, blocks
 * mined): every send the treasury can afford ends confirmed (paid exactly once) or failed (paid
 * nothing), the family's stores agree with the chain, `reconcile chains` agrees and `ledger check`
 * is clean. Throws (AssertionError) on the first broken invariant.
 */
export async function runMoneyCase(world: MoneyWorld, c: MoneyCase): Promise<CaseOutcome> {
  const { db, chain } = world;
  await world.fund();
  const startHeight = await world.height();
  const fleet = createSignerFleet({ world, seed: c.faultSeed, leases: [`sender:${chain}`] });
  const sends: CaseSend[] = [];

  await fleet.run(
    async () => {
      for (const step of c.steps) {
        if (step.kind === "send") {
          const to = world.recipient();
          const request = requestSend(
            db,
            {
              chain,
              asset: world.asset,
              to,
              amountRaw: step.amount,
              purpose: "operator",
              idempotencyKey: `fuzz-${c.faultSeed}-${sends.length}-${to}`,
            },
            sendCheckOf(chain),
          );
          if (world.refused.includes(step.amount)) {
            // Refused at the edge: not positive, or below what any node relays.
            await assert.rejects(request, (error: unknown) => (error as { code?: string }).code === "validation_error");
          } else {
            sends.push({ id: (await request).send.id, to, amount: step.amount, states: [] });
          }
        } else if (isChainStep(step)) {
          await runChainStep(world, step, startHeight);
        } else {
          await fleet.step({ ...step, loop: "pipeline" });
        }
        await checkEveryStep(world, sends);
      }
    },
    async (leader) => {
      await settle(world, leader, sends);
      await checkSettled(world, sends);
    },
  );
  const final = await statesOf(world, sends);
  return {
    steps: c.steps.length,
    sends: sends.length,
    confirmed: final.filter((s) => s === "confirmed").length,
    failed: final.filter((s) => s === "failed").length,
    waitingFunds: final.filter((s) => s === "waiting_funds").length,
    crashes: fleet.crashes,
    faults: fleet.faults(),
  };
}

/** Our attempts' transactions (sends, top-ups, sweeps) mined in the last `depth` blocks. */
export async function ourTransactionsIn(
  world: Pick<MoneyWorld, "db" | "chain" | "height" | "txHeight">,
  depth: number,
): Promise<string[]> {
  const { rows } = await world.db.query<{ tx_hash: string }>(
    "SELECT DISTINCT tx_hash FROM treasury_attempts WHERE chain = $1",
    [world.chain],
  );
  const lowest = (await world.height()) - depth + 1;
  const ours: string[] = [];
  for (const { tx_hash } of rows) if (((await world.txHeight(tx_hash)) ?? -1) >= lowest) ours.push(tx_hash);
  return ours;
}

async function statesOf(world: MoneyWorld, sends: readonly CaseSend[]): Promise<string[]> {
  if (sends.length === 0) return [];
  const { rows } = await world.db.query<{ id: string; state: string }>(
    "SELECT id, state FROM treasury_sends WHERE id = ANY($1::text[])",
    [sends.map((s) => s.id)],
  );
  const byId = new Map(rows.map((r) => [r.id, r.state]));
  return sends.map((s) => byId.get(s.id) ?? "missing");
}

/** What the active chain paid the send's recipient through any of its attempts. */
async function paidFor(world: MoneyWorld, send: CaseSend): Promise<bigint> {
  const { rows } = await world.db.query<{ tx_hash: string }>(
    `SELECT DISTINCT a.tx_hash FROM treasury_attempts a JOIN treasury_attempt_sends x ON x.attempt_id = a.id
      WHERE x.send_id = $1`,
    [send.id],
  );
  return world.paid(
    send.to,
    rows.map((r) => r.tx_hash),
  );
}

/** After every step: no send paid more than it asked, a failed send paid nothing and stays failed. */
async function checkEveryStep(world: MoneyWorld, sends: CaseSend[]): Promise<void> {
  const states = await statesOf(world, sends);
  for (const [i, send] of sends.entries()) {
    const state = states[i] as string;
    const before = send.states.at(-1);
    send.states.push(state);
    assert.notEqual(state, "missing", `send ${send.id} vanished`);
    if (before === "failed") assert.equal(state, "failed", `send ${send.id} left failed: ${send.states.join(" > ")}`);
    const paid = await paidFor(world, send);
    assert.ok(
      paid <= send.amount,
      `send ${send.id} of ${send.amount} paid ${paid} on chain (${send.states.join(" > ")})`,
    );
    if (state === "failed") assert.equal(paid, 0n, `failed send ${send.id} paid ${paid} on chain`);
  }
}

/** Faults off, miners back: passes and blocks until every send is settled (or waits for funds it will never have). */
async function settle(world: MoneyWorld, leader: SignerProcess<"pipeline">, sends: CaseSend[]): Promise<void> {
  await world.hold(false);
  leader.links.pipeline.setRate(0);
  const deadline = Date.now() + 120_000;
  for (;;) {
    await leader.loops.pipeline.tick(world.chain).catch(() => undefined);
    await world.mine(1);
    await checkEveryStep(world, sends);
    const states = await statesOf(world, sends);
    const open = sends.filter((s, i) => {
      const state = states[i];
      if (state === "confirmed" || state === "failed") return false;
      return !(state === "waiting_funds" && s.amount === world.amounts.unaffordable);
    });
    if (open.length === 0) break;
    assert.ok(
      Date.now() < deadline,
      `sends never settled: ${open.map((s) => `${s.id} ${s.amount} ${s.states.join(" > ")}`).join("; ")}`,
    );
  }
  // Deep enough that no send is judged on a shallow block, then the pipeline once more.
  await world.mine(world.confirmations + 1);
  await leader.loops.pipeline.tick(world.chain);
}

/**
 * Once settled: a confirmed send paid exactly its amount, any other nothing; an unaffordable one
 * still waits; the family's stores agree with the chain; `reconcile chains` and `ledger check` clean.
 */
async function checkSettled(world: MoneyWorld, sends: CaseSend[]): Promise<void> {
  const states = await statesOf(world, sends);
  for (const [i, send] of sends.entries()) {
    const state = states[i];
    const paid = await paidFor(world, send);
    if (state === "confirmed") assert.equal(paid, send.amount, `confirmed send ${send.id} paid ${paid}`);
    else assert.equal(paid, 0n, `send ${send.id} (${state}) paid ${paid}`);
    if (send.amount === world.amounts.unaffordable) {
      assert.equal(state, "waiting_funds", `unaffordable send ${send.id} ended ${state}`);
    }
  }
  await world.checkSettled?.();
  const report = await reconcileChains(world.db, world.reconcileTargets());
  assert.equal(report.exitCode, 0, `reconcile chains: ${JSON.stringify(report.lines)}`);
  registerLedgerChecks(); // the transfers' checks too, as `payments ledger check` runs them
  const ledger = await checkLedger(world.db);
  assert.deepEqual(ledger.problems, [], "ledger check");
}

/** The send pipeline's fuzz model (run-money-fuzz.ts runs it on each family's world). */
export const sendFuzz: FuzzModel<MoneyWorld, MoneyCase, CaseOutcome> = {
  caseOf: moneyCase,
  run: runMoneyCase,
  describe: (t) =>
    `${t.sends} sends (${t.confirmed} confirmed, ${t.failed} failed, ` +
    `${t.waitingFunds} waiting for funds they never get)`,
  caseMs: 120_000,
};
