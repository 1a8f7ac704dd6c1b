import assert from "node:assert/strict";
import { checkLedger } from "@mp/ledger";
import { reconcileChains } from "@mp/treasury";
import { listSweepCandidates } from "../../packages/treasury/src/sweeps/sweep-store.ts";
import { registerLedgerChecks } from "../../services/payments/src/ledger-checks.ts";
import type { CaseAddress, SweepWorld } from "./sweep-world.ts";

/** A customer's payment of the case: to one of its deposit addresses, by the transaction `txHash`. */
export interface CaseDeposit extends CaseAddress {
  asset: string;
  amount: bigint;
  txHash: string;
}

/** What a sweep case knows of itself, read by the invariants. */
export interface SweepCaseState {
  addresses: CaseAddress[];
  deposits: CaseDeposit[];
  /** The treasury's holdings of each asset when the case began. */
  treasuryAtStart: Map<string, bigint>;
  /** States each sweep of the case was seen in after each step, in order. */
  sweepStates: Map<string, string[]>;
}

interface SweepRow {
  id: string;
  destination_id: string;
  asset: string;
  state: string;
  covered_raw: string;
  amount_raw: string;
  send_id: string | null;
  top_up_send_id: string | null;
  reason: string | null;
}

const SWEEP_STATES = new Set(["topping_up", "ready", "sweeping", "confirmed", "failed"]);
const key = (destinationId: string, asset: string) => `${destinationId} ${asset}`;

async function caseSweeps(world: SweepWorld, state: SweepCaseState): Promise<SweepRow[]> {
  const { rows } = await world.db.query<SweepRow>(
    `SELECT id, destination_id::text, asset, state, covered_raw::text, amount_raw::text, send_id, top_up_send_id,
            reason
       FROM treasury_sweeps WHERE destination_id = ANY($1::uuid[]) ORDER BY created_at, id`,
    [state.addresses.map((a) => a.destinationId)],
  );
  return rows;
}

/** The case's payments mined on the active chain, summed per deposit address and asset. */
async function landedDeposits(world: SweepWorld, state: SweepCaseState): Promise<Map<string, bigint>> {
  const sums = new Map<string, bigint>();
  for (const d of state.deposits) {
    if (!(await world.landed(d.txHash))) continue;
    const k = key(d.destinationId, d.asset);
    sums.set(k, (sums.get(k) ?? 0n) + d.amount);
  }
  return sums;
}

/** How many distinct attempts of a send are mined, successful, on the active chain. */
async function landedAttempts(world: SweepWorld, sendId: string): Promise<number> {
  const { rows } = await world.db.query<{ tx_hash: string }>(
    `SELECT DISTINCT a.tx_hash FROM treasury_attempts a JOIN treasury_attempt_sends x ON x.attempt_id = a.id
      WHERE x.send_id = $1`,
    [sendId],
  );
  let landed = 0;
  for (const { tx_hash } of rows) if (await world.landed(tx_hash)) landed++;
  return landed;
}

/**
 * After every step: every sweep in one known state, a failed one stays failed; a sweep moves at most
 * what it covers, covers no more than was paid to its address (over its sweeps not failed), and its
 * send and its top-up each landed at most once; what landed of the address's sweeps is at most what
 * customers paid it; every top-up of the case's addresses belongs to exactly one sweep (no top-up
 * twice for one need); the treasury gained no more of a token than customers paid.
 */
export async function checkSweepStep(world: SweepWorld, state: SweepCaseState): Promise<void> {
  const sweeps = await caseSweeps(world, state);
  const paid = await landedDeposits(world, state);
  const covered = new Map<string, bigint>();
  const landedAmount = new Map<string, bigint>();
  for (const s of sweeps) {
    const seen = state.sweepStates.get(s.id) ?? [];
    const before = seen.at(-1);
    seen.push(s.state);
    state.sweepStates.set(s.id, seen);
    const path = `sweep ${s.id} ${s.asset} (${seen.join(" > ")})`;
    assert.ok(SWEEP_STATES.has(s.state), `${path}: unknown state`);
    if (before === "failed") assert.equal(s.state, "failed", `${path}: left failed`);
    assert.ok(
      BigInt(s.amount_raw) <= BigInt(s.covered_raw),
      `${path}: moves ${s.amount_raw} > covers ${s.covered_raw}`,
    );
    const k = key(s.destination_id, s.asset);
    if (s.state !== "failed") covered.set(k, (covered.get(k) ?? 0n) + BigInt(s.covered_raw));
    if (s.send_id) {
      const landed = await landedAttempts(world, s.send_id);
      assert.ok(landed <= 1, `${path}: its send landed ${landed} times`);
      if (landed === 1) landedAmount.set(k, (landedAmount.get(k) ?? 0n) + BigInt(s.amount_raw));
    }
    if (s.top_up_send_id) {
      const landed = await landedAttempts(world, s.top_up_send_id);
      assert.ok(landed <= 1, `${path}: its top-up landed ${landed} times`);
    }
  }
  for (const [k, sum] of covered) {
    assert.ok(
      sum <= (paid.get(k) ?? 0n),
      `${k}: open and confirmed sweeps cover ${sum}, customers paid ${paid.get(k)}`,
    );
  }
  for (const [k, sum] of landedAmount) {
    assert.ok(sum <= (paid.get(k) ?? 0n), `${k}: sweeps landed ${sum} in the treasury, customers paid ${paid.get(k)}`);
  }
  await checkTopUps(world, state);
  await checkTreasuryTokens(world, state);
}

/** Every top-up to a case address is the one top-up of exactly one sweep of that address. */
async function checkTopUps(world: SweepWorld, state: SweepCaseState): Promise<void> {
  const { rows } = await world.db.query<{ id: string; to_address: string; sweeps: number }>(
    `SELECT s.id, s.to_address,
            (SELECT count(*)::int FROM treasury_sweeps w
              WHERE w.top_up_send_id = s.id AND lower(w.deposit_address) = lower(s.to_address)) AS sweeps
       FROM treasury_sends s WHERE s.purpose = 'top_up' AND lower(s.to_address) = ANY($1::text[])`,
    [state.addresses.map((a) => a.address.toLowerCase())],
  );
  for (const r of rows) assert.equal(r.sweeps, 1, `top-up ${r.id} to ${r.to_address} serves ${r.sweeps} sweeps`);
}

/** Tokens reach the treasury only through sweeps: it gains at most what customers paid in. */
async function checkTreasuryTokens(world: SweepWorld, state: SweepCaseState): Promise<void> {
  const paid = await landedDeposits(world, state);
  for (const a of world.assets) {
    if (a.native) continue;
    let total = 0n;
    for (const [k, v] of paid) if (k.endsWith(` ${a.asset}`)) total += v;
    const gained = (await world.balance(world.treasury, a.asset)) - (state.treasuryAtStart.get(a.asset) ?? 0n);
    assert.ok(gained <= total, `the treasury gained ${gained} ${a.asset}, customers paid ${total}`);
  }
}

/**
 * null once the case is settled (every sweep and every send of its addresses confirmed or failed,
 * nothing at or above its threshold left unswept), else what is still open.
 */
export async function sweepsSettled(world: SweepWorld, state: SweepCaseState): Promise<string | null> {
  const open: string[] = [];
  for (const s of await caseSweeps(world, state))
    if (s.state !== "confirmed" && s.state !== "failed")
      open.push(
        `sweep ${s.id} ${s.asset} ${s.state} of ${s.amount_raw} covering ${s.covered_raw}${s.reason ? ` (${s.reason})` : ""}`,
      );
  const keys = state.addresses.map((a) => a.address.toLowerCase());
  const { rows } = await world.db.query<{ id: string; purpose: string; state: string }>(
    `SELECT s.id, s.purpose, s.state FROM treasury_sends s
      WHERE s.state NOT IN ('confirmed', 'failed')
        AND (lower(s.to_address) = ANY($1::text[]) OR s.id IN (
          SELECT send_id FROM treasury_sweeps WHERE destination_id = ANY($2::uuid[]) AND send_id IS NOT NULL))`,
    [keys, state.addresses.map((a) => a.destinationId)],
  );
  for (const r of rows) open.push(`${r.purpose} send ${r.id} ${r.state} [${await attemptsOf(world, r.id)}]`);
  for (const c of await sweepableLeft(world, state)) open.push(`unswept ${c}`);
  return open.length === 0 ? null : open.join("; ");
}

/** A send's attempts as a failure message shows them: hash, state, nonce, landed or not, error. */
async function attemptsOf(world: SweepWorld, sendId: string): Promise<string> {
  const { rows } = await world.db.query<{
    tx_hash: string;
    state: string;
    from_address: string;
    guard: unknown;
    error: string | null;
  }>(
    `SELECT a.tx_hash, a.state, a.from_address, a.guard, a.error FROM treasury_attempts a
       JOIN treasury_attempt_sends x ON x.attempt_id = a.id WHERE x.send_id = $1 ORDER BY a.created_at`,
    [sendId],
  );
  const shown: string[] = [];
  for (const r of rows)
    shown.push(
      `${r.tx_hash} ${r.state} from ${r.from_address} ${JSON.stringify(r.guard)} landed ${await world.landed(r.tx_hash)}${r.error ? ` (${r.error})` : ""}`,
    );
  return shown.join(", ");
}

/** The case's addresses holding confirmed, uncovered deposits at or above the asset's threshold. */
async function sweepableLeft(world: SweepWorld, state: SweepCaseState): Promise<string[]> {
  const ours = new Set(state.addresses.map((a) => a.destinationId));
  const candidates = await listSweepCandidates(world.db, world.chain, 10_000);
  return candidates
    .filter((c) => ours.has(c.destinationId))
    .filter((c) => c.unsweptRaw >= (world.assets.find((a) => a.asset === c.asset)?.threshold ?? 0n))
    .map((c) => `${c.address} ${c.asset} ${c.unsweptRaw}`);
}

/**
 * Once settled: the indexer credited every payment that landed; a confirmed sweep's send landed
 * once, a failed one's never; every token the customers paid is in the treasury or still at its
 * address below the threshold (exactly); `reconcile chains` and `ledger check` clean.
 */
export async function checkSweepsSettled(world: SweepWorld, state: SweepCaseState): Promise<void> {
  const paid = await landedDeposits(world, state);
  const { rows: credited } = await world.db.query<{ destination_id: string; asset: string; total: string }>(
    `SELECT destination_id::text, asset, sum(amount_raw)::text AS total FROM deposits
      WHERE destination_id = ANY($1::uuid[]) AND status = 'CONFIRMED' GROUP BY destination_id, asset`,
    [state.addresses.map((a) => a.destinationId)],
  );
  const creditedBy = new Map(credited.map((r) => [key(r.destination_id, r.asset), BigInt(r.total)]));
  for (const [k, v] of paid) assert.equal(creditedBy.get(k) ?? 0n, v, `${k}: credited deposits`);
  const swept = new Map<string, bigint>();
  for (const s of await caseSweeps(world, state)) {
    const landed = s.send_id ? await landedAttempts(world, s.send_id) : 0;
    assert.equal(landed, s.state === "confirmed" ? 1 : 0, `sweep ${s.id} ${s.state}: its send landed ${landed} times`);
    const k = key(s.destination_id, s.asset);
    if (s.state === "confirmed") swept.set(k, (swept.get(k) ?? 0n) + BigInt(s.amount_raw));
  }
  for (const a of world.assets) {
    if (a.native) continue;
    let total = 0n;
    for (const address of state.addresses) {
      const k = key(address.destinationId, a.asset);
      const left = (paid.get(k) ?? 0n) - (swept.get(k) ?? 0n);
      assert.equal(await world.balance(address.address, a.asset), left, `${k}: left at the address`);
      total += swept.get(k) ?? 0n;
    }
    const gained = (await world.balance(world.treasury, a.asset)) - (state.treasuryAtStart.get(a.asset) ?? 0n);
    assert.equal(gained, total, `the treasury gained ${gained} ${a.asset}, confirmed sweeps moved ${total}`);
  }
  const report = await reconcileChains(world.db, world.reconcileTargets());
  assert.equal(report.exitCode, 0, `reconcile chains: ${JSON.stringify(report.lines)}`);
  registerLedgerChecks(); // the transfers' checks too, as `payments ledger check` runs them
  const ledger = await checkLedger(world.db);
  assert.deepEqual(ledger.problems, [], "ledger check");
}
