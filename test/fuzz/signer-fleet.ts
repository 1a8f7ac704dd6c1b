import type { ChainId } from "@mp/core";
import { silentLogger } from "@mp/core";
import { createLeaseKeeper, type LeaseKeeper } from "@mp/db";
import { createSendPipeline } from "@mp/treasury";
import { TEST_LEASE_SECONDS } from "../support/test-leases.ts";
import { createFaultyFetch, type FaultCounts, type FaultyFetch, noFaults } from "./faulty-fetch.ts";
import type { MoneyWorld } from "./money-world.ts";

/** A loop of the signer role that a fuzz case drives one pass at a time: the send pipeline, a sweeper. */
export interface CaseLoop {
  tick(chain: ChainId): Promise<void>;
  stop(): Promise<void>;
}

/** One signer process of a case: its lease keeper, and each of its loops with its own faulty link to the node. */
export interface SignerProcess<L extends string> {
  keeper: LeaseKeeper;
  links: Record<L, FaultyFetch>;
  loops: Record<L, CaseLoop>;
  /** The pass in flight when it was stopped mid-way (crash), settled once it wakes or dies. */
  pass: Promise<void> | null;
}

/** Where a crash stops the leader's `loop`: at its `atCall`-th node call of a pass, before or after the node acted; woken again or not. */
interface CrashAt<L extends string> {
  loop: L;
  atCall: number;
  when: "before" | "after";
  wakes: boolean;
}

/** A step of the signer processes, whatever else a model drives: a pass of the leader's `loop`, a broadcast refused, a crash. */
export type SignerStep<L extends string> =
  /** One pass of the leader's `loop` with this share of its node calls faulty; then the deposed leader, if any, wakes. */
  | { kind: "tick"; loop: L; faultRate: number }
  /** The node refuses the next broadcast of the leader's `loop` for good (those bytes never land, whoever sends them). */
  | { kind: "refuse"; loop: L }
  /**
   * The leader's `loop` stops at its `atCall`-th node call of a pass; the process is gone (all its
   * loops), its leases lapse and a new process over the same database leads. The old pass dies there
   * or (`wakes`) sleeps until the new leader's next pass has ended (or the steps have): a deposed
   * leader waking up.
   */
  | ({ kind: "crash" } & CrashAt<L>);

/**
 * The signer processes of one fuzz case on one chain: the leader the steps drive, the deposed ones
 * (a crash), and the one deposed mid-pass that wakes up later.
 */
export interface SignerFleet<L extends string> {
  /** The process that leads now. */
  readonly leader: SignerProcess<L>;
  /** The crashes the case's steps made. */
  readonly crashes: number;
  /** Takes a signer step on the fleet (a failed pass is the fault's doing: the invariants judge it). */
  step(step: SignerStep<L>): Promise<void>;
  /**
   * A case on the fleet: its `steps`, then the deposed leader woken (if one sleeps) and `settle` on
   * the leader. However it ends: the miners back at work where the world holds them (the next case
   * starts on a working chain), every process's links dead, then every process stopped.
   */
  run(steps: () => Promise<void>, settle: (leader: SignerProcess<L>) => Promise<void>): Promise<void>;
  /** The faults the links of every process of the case injected, summed. */
  faults(): FaultCounts;
}

/** What a signer process of the fleet needs of its chain's world (a MoneyWorld, a SweepWorld). */
export type FleetWorld = Pick<MoneyWorld, "db" | "chain" | "broadcasts" | "sender" | "confirmations"> &
  Partial<Pick<MoneyWorld, "hold">>;

/**
 * The signer processes of a case on `world`'s chain, the first leading at once. Each process has a
 * lease keeper, the send pipeline and the `others` loops (a sweeper), each loop on its own faulty
 * link to the node, seeded from `seed` (the next seed per link, in that order, so a case replays).
 * The links of all processes share the bytes refused for good: whichever process sends them again,
 * they stay refused.
 */
export function createSignerFleet<O extends string = never>(options: {
  world: FleetWorld;
  seed: number;
  others?: Record<O, (fetch: typeof globalThis.fetch, keeper: LeaseKeeper) => CaseLoop>;
  /** The leases a process holds (`sender:<CHAIN>`...): a dead process's are taken over at once. */
  leases: readonly string[];
}): SignerFleet<"pipeline" | O> {
  type L = "pipeline" | O;
  const { db, chain } = options.world;
  const others = Object.entries(options.others ?? {}) as Array<
    [O, (fetch: typeof globalThis.fetch, keeper: LeaseKeeper) => CaseLoop]
  >;
  const loopNames: L[] = ["pipeline", ...others.map(([name]) => name)];
  const processes: SignerProcess<L>[] = [];
  let seedOffset = 0;
  const broadcasts = { recognize: options.world.broadcasts, refused: new Set<string>(), sent: new Set<string>() };
  const newProcess = (): SignerProcess<L> => {
    const keeper = createLeaseKeeper({ db, role: "signer", seconds: TEST_LEASE_SECONDS, logger: silentLogger() });
    const links = Object.fromEntries(
      loopNames.map((loop) => [loop, createFaultyFetch({ seed: options.seed + seedOffset++, broadcasts })]),
    ) as Record<L, FaultyFetch>;
    const pipeline = createSendPipeline({
      db,
      senders: [options.world.sender(links.pipeline.fetch)],
      logger: silentLogger(),
      confirmations: { [chain]: options.world.confirmations },
      leases: keeper,
    });
    const loops = Object.fromEntries([
      ["pipeline", pipeline],
      ...others.map(([name, start]) => [name, start(links[name].fetch, keeper)]),
    ]) as Record<L, CaseLoop>;
    const started: SignerProcess<L> = { keeper, links, loops, pass: null };
    processes.push(started);
    return started;
  };
  const linksOf = (p: SignerProcess<L>): FaultyFetch[] => loopNames.map((loop) => p.links[loop]);
  /** Its pass settled, its loops stopped (the last made first), then its keeper. */
  const stop = async (p: SignerProcess<L>) => {
    await p.pass?.catch(() => undefined);
    for (const loop of [...loopNames].reverse()) await p.loops[loop].stop();
    await p.keeper.stop();
  };
  let leader = newProcess();
  let sleeper: SignerProcess<L> | null = null;
  let crashes = 0;
  const wakeSleeper = async () => {
    if (!sleeper) return;
    const s = sleeper;
    sleeper = null;
    for (const link of linksOf(s)) link.wake();
    await stop(s);
  };
  const crash = async (at: CrashAt<L>) => {
    crashes++;
    await wakeSleeper();
    const old = leader;
    const link = old.links[at.loop];
    link.setRate(0);
    link.pauseAt(at.atCall, at.when);
    old.pass = old.loops[at.loop].tick(chain);
    const settled = await passEndsOrPauses(old.pass, link);
    // The old process's keeper is gone (a dead process's liveness lock is freed): its leases may be taken at once.
    await db.query("UPDATE leases SET expires_at = clock_timestamp() WHERE name = ANY($1::text[])", [
      [...options.leases],
    ]);
    leader = newProcess();
    if (settled || !at.wakes) {
      for (const l of linksOf(old)) l.kill();
      await stop(old);
    } else {
      await old.keeper.stop();
      sleeper = old;
    }
  };

  return {
    get leader() {
      return leader;
    },
    get crashes() {
      return crashes;
    },
    async step(step) {
      if (step.kind === "tick") {
        leader.links[step.loop].setRate(step.faultRate);
        await leader.loops[step.loop].tick(chain).catch(() => undefined);
        await wakeSleeper();
      } else if (step.kind === "refuse") {
        leader.links[step.loop].refuseNextBroadcast();
      } else {
        await crash(step);
      }
    },
    async run(steps, settle) {
      try {
        await steps();
        // The deposed leader's pass ends before the world settles.
        await wakeSleeper();
        await settle(leader);
      } finally {
        await options.world.hold?.(false);
        for (const p of processes) for (const link of linksOf(p)) link.kill();
        for (const p of processes) await stop(p);
      }
    },
    faults() {
      const faults = noFaults();
      for (const p of processes)
        for (const link of linksOf(p))
          for (const [k, v] of Object.entries(link.counts)) faults[k as keyof FaultCounts] += v;
      return faults;
    },
  };
}

export async function untilPaused(link: FaultyFetch): Promise<false> {
  while (!link.paused) await new Promise((r) => setTimeout(r, 5));
  return false;
}

/** Until `link` pauses at its chosen call or `pass` ends first (fewer calls than that): true when the pass ended. */
export function passEndsOrPauses(pass: Promise<unknown>, link: FaultyFetch): Promise<boolean> {
  return Promise.race([
    pass.then(
      () => true,
      () => true,
    ),
    untilPaused(link),
  ]);
}
