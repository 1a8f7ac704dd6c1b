import assert from "node:assert/strict";
import { silentLogger } from "@mp/core";
import { createLeaseKeeper, type Database, type LeaseKeeper } from "@mp/db";
import { checkLedger } from "@mp/ledger";
import { createSendPipeline, reconcileChains, requestSend, type SendPipeline } from "@mp/treasury";
import fc from "fast-check";
import { createBitcoinSender } from "../../packages/treasury/src/bitcoin/bitcoin-sender.ts";
import {
  type BitcoinTreasuryHarness,
  freshRecipients,
  nodeRpc,
  paidOnChain,
} from "../../packages/treasury/test/support/bitcoin-treasury.ts";
import { TEST_LEASE_SECONDS } from "../support/test-leases.ts";
import { createFaultyFetch, type FaultCounts, type FaultyFetch } from "./faulty-fetch.ts";

/** What a fuzz step does to the world around the Bitcoin send pipeline. */
export type BitcoinStep =
  /** A send request; `amount` is a hostile one at times: dust the chain refuses, more than the treasury has. */
  | { kind: "send"; amount: bigint }
  /** One pass of the leading pipeline with this share of its node calls faulty. */
  | { kind: "tick"; faultRate: number }
  | { kind: "mine"; blocks: number }
  /** Miners leave the mempool out (sends get stuck, replaced by RBF) or take it again. */
  | { kind: "hold"; on: boolean }
  /** The last `depth` blocks replaced; our transactions in them re-mined, back to the mempool, or dropped. */
  | { kind: "reorg"; depth: number; ours: "remine" | "mempool" | "drop"; longer: boolean }
  /**
   * The leader stops at its `atCall`-th node call of a pass (before or after the node acted), its
   * lease lapses and a new pipeline over the same database leads; the old one then either dies there
   * or wakes up later and goes on with its pass (a deposed leader), after `afterSteps` of the new one.
   */
  | { kind: "crash"; atCall: number; when: "before" | "after"; wakes: boolean };

const P2WPKH_DUST = 294n;
/** More than the fuzz ever funds: such a send waits for funds, never goes out. */
const UNAFFORDABLE = 100_000_000_000n;

export const bitcoinStep: fc.Arbitrary<BitcoinStep> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant("send" as const),
      amount: fc.oneof(
        { weight: 6, arbitrary: fc.bigInt({ min: 10_000n, max: 3_000_000n }) },
        { weight: 1, arbitrary: fc.bigInt({ min: -1n, max: P2WPKH_DUST - 1n }) },
        { weight: 1, arbitrary: fc.constant(P2WPKH_DUST) },
        { weight: 1, arbitrary: fc.constant(UNAFFORDABLE) },
      ),
    }),
  },
  {
    weight: 5,
    arbitrary: fc.record({ kind: fc.constant("tick" as const), faultRate: fc.constantFrom(0, 0, 0.2, 0.5, 1) }),
  },
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
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant("crash" as const),
      atCall: fc.integer({ min: 1, max: 8 }),
      when: fc.constantFrom("before" as const, "after" as const),
      wakes: fc.boolean(),
    }),
  },
);

export const bitcoinCase = fc.record({
  faultSeed: fc.integer({ min: 0, max: 2 ** 31 - 1 }),
  steps: fc.array(bitcoinStep, { minLength: 6, maxLength: 18 }),
});
export type BitcoinCase = { faultSeed: number; steps: BitcoinStep[] };

/** One pipeline instance: a process of the signer role, with its own lease keeper and faulty node link. */
interface Instance {
  keeper: LeaseKeeper;
  link: FaultyFetch;
  pipeline: SendPipeline;
  /** The pass in flight when it was stopped mid-way (crash), settled once it wakes or dies. */
  pass: Promise<void> | null;
}

interface CaseSend {
  id: string;
  to: string;
  amount: bigint;
  /** States seen after each step, in order. */
  states: string[];
}

export interface CaseOutcome {
  steps: number;
  sends: number;
  confirmed: number;
  failed: number;
  waitingFunds: number;
  crashes: number;
  faults: FaultCounts;
}

/**
 * One fuzz case on the Bitcoin send pipeline (test node without -txindex, the real indexer
 * recording the treasury's coins). After every step: no send paid more than once on the active
 * chain, a failed send paid nothing and stays failed. After the steps the world settles (faults off,
 * blocks mined): every send the treasury can afford ends confirmed (paid exactly once) or failed (a
 * refused amount, paid nothing), the treasury's free coins are unspent on the chain, `reconcile
 * chains` agrees and `ledger check` is clean. Throws (AssertionError) on the first broken invariant.
 */
export async function runBitcoinCase(db: Database, h: BitcoinTreasuryHarness, c: BitcoinCase): Promise<CaseOutcome> {
  await h.fund([20_000_000n, 20_000_000n]);
  const startHeight = h.node.height;
  const instances: Instance[] = [];
  const faults: FaultCounts = { calls: 0, refused: 0, "lost-answer": 0, "http-503": 0 };
  let seedOffset = 0;
  const newInstance = (): Instance => {
    const keeper = createLeaseKeeper({ db, role: "signer", seconds: TEST_LEASE_SECONDS, logger: silentLogger() });
    const link = createFaultyFetch({ seed: c.faultSeed + seedOffset++ });
    const sender = createBitcoinSender({
      config: h.config,
      keys: h.keys,
      db,
      logger: silentLogger(),
      fetch: link.fetch,
    });
    const pipeline = createSendPipeline({
      db,
      senders: [sender],
      logger: silentLogger(),
      confirmations: { BITCOIN: 2 },
      leases: keeper,
    });
    const instance: Instance = { keeper, link, pipeline, pass: null };
    instances.push(instance);
    return instance;
  };
  let leader = newInstance();
  /** A deposed instance paused mid-pass, woken after the new leader's next pass. */
  let sleeper: Instance | null = null;
  const sends: CaseSend[] = [];
  let crashes = 0;

  const wakeSleeper = async () => {
    if (!sleeper) return;
    const s = sleeper;
    sleeper = null;
    s.link.wake();
    await s.pass?.catch(() => undefined);
    await s.pipeline.stop();
    await s.keeper.stop();
  };

  const takeOver = async (): Promise<void> => {
    // The old keeper is gone (a dead process's liveness lock is freed): its lease may be taken at once.
    await db.query("UPDATE leases SET expires_at = clock_timestamp() WHERE name = 'sender:BITCOIN'");
    leader = newInstance();
  };

  try {
    for (const step of c.steps) {
      if (step.kind === "send") {
        const [to] = freshRecipients(1) as [string];
        const request = requestSend(db, {
          chain: "BITCOIN",
          asset: "BTC",
          to,
          amountRaw: step.amount,
          purpose: "operator",
          idempotencyKey: `fuzz-${c.faultSeed}-${sends.length}-${to}`,
        });
        if (step.amount < P2WPKH_DUST) {
          // Refused at the edge: no node relays such an output.
          await assert.rejects(request, (error: unknown) => (error as { code?: string }).code === "validation_error");
        } else {
          sends.push({ id: (await request).send.id, to, amount: step.amount, states: [] });
        }
      } else if (step.kind === "tick") {
        leader.link.setRate(step.faultRate);
        await leader.pipeline.tick("BITCOIN").catch(() => undefined);
        await wakeSleeper();
      } else if (step.kind === "mine") {
        await h.mine(step.blocks);
      } else if (step.kind === "hold") {
        h.node.setMiningPolicy({ hold: step.on });
      } else if (step.kind === "reorg") {
        const depth = Math.min(step.depth, h.node.height - startHeight);
        if (depth >= 1) {
          const ours = await ourTransactionsIn(db, h, depth);
          const options = step.ours === "remine" ? {} : step.ours === "mempool" ? { toMempool: ours } : { drop: ours };
          h.node.reorg(depth, { ...options, blocks: depth + (step.longer ? 1 : 0) });
          await h.catchUp();
        }
      } else {
        crashes++;
        await wakeSleeper();
        const old = leader;
        old.link.setRate(0);
        old.link.pauseAt(step.atCall, step.when);
        old.pass = old.pipeline.tick("BITCOIN");
        // Until it stops at that call, or its pass ends first (fewer calls than atCall).
        const settled = await Promise.race([
          old.pass.then(
            () => true,
            () => true,
          ),
          untilPaused(old.link),
        ]);
        await takeOver();
        if (settled === true || !step.wakes) {
          old.link.kill();
          await old.pass.catch(() => undefined);
          await old.pipeline.stop();
          await old.keeper.stop();
        } else {
          await old.keeper.stop();
          sleeper = old;
        }
      }
      await checkEveryStep(db, h, sends);
    }
    await wakeSleeper();
    await settle(db, h, leader, sends);
    await checkSettled(db, h, sends);
  } finally {
    h.node.setMiningPolicy({ hold: false });
    for (const i of instances) {
      i.link.kill();
      for (const [k, v] of Object.entries(i.link.counts)) faults[k as keyof FaultCounts] += v;
    }
    for (const i of instances) {
      await i.pass?.catch(() => undefined);
      await i.pipeline.stop();
      await i.keeper.stop();
    }
  }
  const final = await statesOf(db, sends);
  return {
    steps: c.steps.length,
    sends: sends.length,
    confirmed: final.filter((s) => s === "confirmed").length,
    failed: final.filter((s) => s === "failed").length,
    waitingFunds: final.filter((s) => s === "waiting_funds").length,
    crashes,
    faults,
  };
}

async function untilPaused(link: FaultyFetch): Promise<false> {
  while (!link.paused) await new Promise((r) => setTimeout(r, 5));
  return false;
}

/** Our attempts' transactions mined in the last `depth` blocks. */
async function ourTransactionsIn(db: Database, h: BitcoinTreasuryHarness, depth: number): Promise<string[]> {
  const { rows } = await db.query<{ tx_hash: string }>(
    "SELECT DISTINCT tx_hash FROM treasury_attempts WHERE chain = 'BITCOIN'",
  );
  const lowest = h.node.height - depth + 1;
  return rows
    .map((r) => r.tx_hash)
    .filter((tx) => {
      const block = h.node.blockOf(tx);
      if (block === undefined) return false;
      for (let height = lowest; height <= h.node.height; height++) if (h.node.blockHash(height) === block) return true;
      return false;
    });
}

async function statesOf(db: Database, sends: readonly CaseSend[]): Promise<string[]> {
  if (sends.length === 0) return [];
  const { rows } = await db.query<{ id: string; state: string }>(
    "SELECT id, state FROM treasury_sends WHERE id = ANY($1::text[])",
    [sends.map((s) => s.id)],
  );
  const byId = new Map(rows.map((r) => [r.id, r.state]));
  return sends.map((s) => byId.get(s.id) ?? "missing");
}

/** What the active chain paid the send's recipient through any of its attempts. */
async function paidFor(db: Database, h: BitcoinTreasuryHarness, send: CaseSend): Promise<bigint> {
  const { rows } = await db.query<{ tx_hash: string }>(
    `SELECT DISTINCT a.tx_hash FROM treasury_attempts a JOIN treasury_attempt_sends x ON x.attempt_id = a.id
      WHERE x.send_id = $1`,
    [send.id],
  );
  let paid = 0n;
  for (const r of rows) paid += await paidOnChain(h.node, r.tx_hash, send.to);
  return paid;
}

async function checkEveryStep(db: Database, h: BitcoinTreasuryHarness, sends: CaseSend[]): Promise<void> {
  const states = await statesOf(db, sends);
  for (const [i, send] of sends.entries()) {
    const state = states[i] as string;
    const before = send.states.at(-1);
    send.states.push(state);
    assert.notEqual(state, "missing", `send ${send.id} vanished`);
    if (before === "failed") assert.equal(state, "failed", `send ${send.id} left failed: ${send.states.join(" > ")}`);
    const paid = await paidFor(db, h, send);
    assert.ok(
      paid <= send.amount,
      `send ${send.id} of ${send.amount} paid ${paid} on chain (${send.states.join(" > ")})`,
    );
    if (state === "failed") assert.equal(paid, 0n, `failed send ${send.id} paid ${paid} on chain`);
  }
}

/** Faults off, miners back: passes and blocks until every send is settled (or waits for funds it will never have). */
async function settle(db: Database, h: BitcoinTreasuryHarness, leader: Instance, sends: CaseSend[]): Promise<void> {
  h.node.setMiningPolicy({ hold: false });
  leader.link.setRate(0);
  const deadline = Date.now() + 120_000;
  for (;;) {
    await leader.pipeline.tick("BITCOIN").catch(() => undefined);
    await h.mine(1);
    await checkEveryStep(db, h, sends);
    const states = await statesOf(db, sends);
    const open = sends.filter((s, i) => {
      const state = states[i];
      if (state === "confirmed" || state === "failed") return false;
      return !(state === "waiting_funds" && s.amount === UNAFFORDABLE);
    });
    if (open.length === 0) break;
    assert.ok(
      Date.now() < deadline,
      `sends never settled: ${open.map((s) => `${s.id} ${s.amount} ${s.states.join(" > ")}`).join("; ")}`,
    );
  }
  // Deep enough that no send is judged on a shallow block, then the indexer and the pipeline once more.
  await h.mine(3);
  await leader.pipeline.tick("BITCOIN");
}

async function checkSettled(db: Database, h: BitcoinTreasuryHarness, sends: CaseSend[]): Promise<void> {
  const states = await statesOf(db, sends);
  for (const [i, send] of sends.entries()) {
    const state = states[i];
    const paid = await paidFor(db, h, send);
    if (state === "confirmed") assert.equal(paid, send.amount, `confirmed send ${send.id} paid ${paid}`);
    else assert.equal(paid, 0n, `send ${send.id} (${state}) paid ${paid}`);
    if (send.amount === UNAFFORDABLE)
      assert.equal(state, "waiting_funds", `unaffordable send ${send.id} ended ${state}`);
  }
  // The treasury's free coins (what the sender will spend next) are unspent on the active chain.
  const { rows: coins } = await db.query<{ txid: string; vout: number }>(
    `SELECT txid, vout FROM treasury_utxos
      WHERE chain = 'BITCOIN' AND reserved_by IS NULL AND spent_by IS NULL AND block_height IS NOT NULL`,
  );
  for (const coin of coins) {
    const { result } = await nodeRpc(h.node, "gettxout", [coin.txid, coin.vout, false]);
    assert.ok(
      result !== null && result !== undefined,
      `free treasury coin ${coin.txid}:${coin.vout} is spent on chain`,
    );
  }
  const report = await reconcileChains(db, [
    { config: h.config, assets: [{ asset: "BTC", address: null, decimals: 8 }] },
  ]);
  assert.equal(report.exitCode, 0, `reconcile chains: ${JSON.stringify(report.lines)}`);
  const ledger = await checkLedger(db);
  assert.deepEqual(ledger.problems, [], "ledger check");
}
