import fc from "fast-check";
import type { FaultCounts } from "./faulty-fetch.ts";
import {
  type ChainStep,
  chainSteps,
  crashFields,
  type FuzzCase,
  faultRates,
  fuzzCase,
  isChainStep,
  runChainStep,
} from "./money-model.ts";
import type { FuzzModel, FuzzOutcome } from "./run-money-fuzz.ts";
import { createSignerFleet, type SignerProcess, type SignerStep } from "./signer-fleet.ts";
import {
  type CaseDeposit,
  checkSweepStep,
  checkSweepsSettled,
  type SweepCaseState,
  sweepsSettled,
} from "./sweep-invariants.ts";
import type { SweepWorld } from "./sweep-world.ts";

/** The signer's two loops on a chain: the send pipeline (top-ups, broadcasts, confirmations) and the sweeper. */
export type SweepLoop = "pipeline" | "sweeper";

/** What a sweep fuzz step does to the world around a chain's sweeper and send pipeline. */
export type SweepStep =
  /** A customer pays `amount` of the world's `asset`-th asset to the case's `slot`-th deposit address. */
  | { kind: "deposit"; slot: number; asset: number; amount: bigint }
  | ChainStep
  /** A pass of either loop, a broadcast refused for good, a crash of the signer process (both loops). */
  | SignerStep<SweepLoop>;

export type SweepCase = FuzzCase<SweepStep>;

/** Deposit addresses per case: few, so deposits pile up on them (top-ups, repeated sweeps). */
export const SWEEP_SLOTS = 3;

const loop = fc.constantFrom("pipeline" as const, "sweeper" as const);

/** The cases of one world: deposits of its assets around their thresholds, passes of both loops, faults. */
export function sweepCase(world: Pick<SweepWorld, "assets">): fc.Arbitrary<SweepCase> {
  const deposit = fc.oneof(
    ...world.assets.map((a, asset) =>
      fc.record({
        kind: fc.constant("deposit" as const),
        slot: fc.integer({ min: 0, max: SWEEP_SLOTS - 1 }),
        asset: fc.constant(asset),
        amount: fc.bigInt({ min: a.min, max: a.max }),
      }),
    ),
  );
  const step: fc.Arbitrary<SweepStep> = fc.oneof(
    { weight: 3, arbitrary: deposit },
    {
      weight: 6,
      arbitrary: fc.record({
        kind: fc.constant("tick" as const),
        loop,
        faultRate: faultRates,
      }),
    },
    ...chainSteps,
    { weight: 1, arbitrary: fc.record({ kind: fc.constant("refuse" as const), loop }) },
    { weight: 2, arbitrary: fc.record({ ...crashFields(10), loop }) },
  );
  return fuzzCase(step, 8, 24);
}

export interface SweepOutcome extends FuzzOutcome {
  deposits: number;
  sweeps: number;
  confirmed: number;
  failed: number;
  topUps: number;
}

/**
 * One fuzz case on a chain's sweeper and send pipeline (its test node, the real indexer crediting
 * the deposits). After every step the invariants of checkSweepStep hold; after the steps the world
 * settles (faults off, blocks mined, both loops passing) and checkSweepsSettled holds. Throws
 * (AssertionError) on the first broken invariant.
 */
export async function runSweepCase(world: SweepWorld, c: SweepCase): Promise<SweepOutcome> {
  const { chain } = world;
  const addresses = await world.startCase(SWEEP_SLOTS);
  const startHeight = await world.height();
  const state: SweepCaseState = {
    addresses,
    deposits: [] as CaseDeposit[],
    treasuryAtStart: new Map(),
    sweepStates: new Map(),
  };
  for (const a of world.assets)
    if (!a.native) state.treasuryAtStart.set(a.asset, await world.balance(world.treasury, a.asset));
  const fleet = createSignerFleet({
    world,
    seed: c.faultSeed,
    others: { sweeper: (fetch, keeper) => world.sweeper(fetch, keeper) },
    leases: [`sender:${chain}`, `sweeper:${chain}`],
  });

  await fleet.run(
    async () => {
      for (const step of c.steps) {
        if (step.kind === "deposit") {
          const address = addresses[step.slot] as (typeof addresses)[number];
          const asset = (world.assets[step.asset] as (typeof world.assets)[number]).asset;
          const txHash = await world.deposit(address.address, asset, step.amount);
          state.deposits.push({ ...address, asset, amount: step.amount, txHash });
        } else if (isChainStep(step)) {
          // Customers' payments in reorganised blocks are mined again.
          await runChainStep(world, step, startHeight);
        } else {
          await fleet.step(step);
        }
        await checkSweepStep(world, state);
      }
    },
    async (leader) => {
      await settle(world, leader, state);
      await checkSweepsSettled(world, state);
    },
  );
  return outcome(world, state, c.steps.length, fleet.crashes, fleet.faults());
}

/** Faults off, miners back: passes of both loops and blocks until every sweep and send of the case is settled. */
async function settle(world: SweepWorld, leader: SignerProcess<SweepLoop>, state: SweepCaseState): Promise<void> {
  await world.hold(false);
  leader.links.pipeline.setRate(0);
  leader.links.sweeper.setRate(0);
  const pass = async () => {
    await leader.loops.sweeper.tick(world.chain).catch(() => undefined);
    await leader.loops.pipeline.tick(world.chain).catch(() => undefined);
  };
  const deadline = Date.now() + 150_000;
  for (let passes = 1; ; passes++) {
    await pass();
    // Later passes mine faster: an attempt refused for good settles only once its replay guard
    // expires (Solana: 150 blocks past its blockhash, then finalized), too slow at one block a pass.
    await world.mine(passes > 20 ? 8 : 1);
    await checkSweepStep(world, state);
    const open = await sweepsSettled(world, state);
    if (open === null) {
      // Deep enough that nothing is judged on a shallow block, then both loops once more.
      await world.mine(world.confirmations + 1);
      await pass();
      if ((await sweepsSettled(world, state)) === null) return;
    } else if (Date.now() > deadline) {
      throw new Error(`sweeps never settled: ${open}`);
    }
  }
}

async function outcome(
  world: SweepWorld,
  state: SweepCaseState,
  steps: number,
  crashes: number,
  faults: FaultCounts,
): Promise<SweepOutcome> {
  const { rows } = await world.db.query<{ state: string; top_up: boolean }>(
    "SELECT state, top_up_send_id IS NOT NULL AS top_up FROM treasury_sweeps WHERE destination_id = ANY($1::uuid[])",
    [state.addresses.map((a) => a.destinationId)],
  );
  return {
    steps,
    deposits: state.deposits.length,
    sweeps: rows.length,
    confirmed: rows.filter((r) => r.state === "confirmed").length,
    failed: rows.filter((r) => r.state === "failed").length,
    topUps: rows.filter((r) => r.top_up).length,
    crashes,
    faults,
  };
}

/** The sweeper's fuzz model (run-money-fuzz.ts runs it on each family's sweep world). */
export const sweepFuzz: FuzzModel<SweepWorld, SweepCase, SweepOutcome> = {
  caseOf: sweepCase,
  run: runSweepCase,
  describe: (t) =>
    `${t.deposits} deposits, ${t.sweeps} sweeps (${t.confirmed} confirmed, ` +
    `${t.failed} failed, ${t.topUps} with a top-up)`,
  caseMs: 180_000,
};
