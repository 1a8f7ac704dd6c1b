import assert from "node:assert/strict";
import { checkLedger } from "@mp/ledger";
import { registerLedgerChecks } from "../../services/payments/src/ledger-checks.ts";
import { merchantHeld } from "./drain-invariants.ts";
import type { ReturnsWorld } from "./returns-world.ts";

/** A case's deposit addresses (held ones, transfers' funding addresses): its deposits are theirs. */
export interface ReturnCaseState {
  addresses: string[];
}

interface ReturnRow {
  deposit_id: string;
  amount_raw: string;
  deposit_status: string;
  return_state: string | null;
  send_keys: string[] | null;
  send_amounts: string[] | null;
  send_states: string[] | null;
}

/** The case's deposits, each with its return (if any) and every treasury send of it (keys #1, #2, ...). */
async function returnsOf(world: ReturnsWorld, state: ReturnCaseState): Promise<ReturnRow[]> {
  const { rows } = await world.started.t.api.db.query<ReturnRow>(
    `SELECT d.id AS deposit_id, d.amount_raw::text AS amount_raw, d.status AS deposit_status, r.state AS return_state,
            array_agg(s.idempotency_key ORDER BY s.created_at) FILTER (WHERE s.id IS NOT NULL) AS send_keys,
            array_agg(s.amount_raw::text ORDER BY s.created_at) FILTER (WHERE s.id IS NOT NULL) AS send_amounts,
            array_agg(s.state ORDER BY s.created_at) FILTER (WHERE s.id IS NOT NULL) AS send_states
       FROM deposits d LEFT JOIN deposit_returns r ON r.deposit_id = d.id
       LEFT JOIN treasury_sends s ON s.purpose = 'return'
            AND (s.idempotency_key = 'deposit-return:' || d.id OR s.idempotency_key LIKE 'deposit-return:' || d.id || '#%')
      WHERE d.chain = 'BASE' AND d.to_address = ANY($1::text[])
      GROUP BY d.id, r.state`,
    [state.addresses],
  );
  return rows;
}

/** The transactions (every attempt) of the treasury send with idempotency key `key`. */
async function attemptsOf(world: ReturnsWorld, key: string): Promise<string[]> {
  const { rows } = await world.started.t.api.db.query<{ tx_hash: string }>(
    `SELECT DISTINCT a.tx_hash FROM treasury_attempts a JOIN treasury_attempt_sends x ON x.attempt_id = a.id
       JOIN treasury_sends s ON s.id = x.send_id WHERE s.idempotency_key = $1`,
    [key],
  );
  return rows.map((r) => r.tx_hash);
}

/**
 * After every step of a returns case: `ledger check` clean (its return checks: returns_payable is
 * what the unsent returns owe, every deposit_return entry a returned deposit's); both merchants'
 * available balance never below zero; each deposit sent back at most once on chain: at most one of
 * its sends confirmed, at most one landed on the active chain, and what landed paid the payer no
 * more than that send asked (never more than the deposit brought).
 */
export async function checkReturnStep(world: ReturnsWorld, state: ReturnCaseState): Promise<void> {
  const db = world.started.t.api.db;
  registerLedgerChecks();
  const ledger = await checkLedger(db);
  assert.deepEqual(ledger.problems, [], "ledger check");
  for (const merchantId of [world.heldMerchant.merchantId, world.policyMerchant.merchantId]) {
    const { available } = await merchantHeld(db, merchantId);
    assert.ok(available >= 0n, `merchant ${merchantId}: available ${available} below zero`);
  }
  for (const r of await returnsOf(world, state)) {
    const keys = r.send_keys ?? [];
    const what = `deposit ${r.deposit_id} (${r.amount_raw}, ${r.deposit_status}), return ${r.return_state}, sends ${JSON.stringify(r.send_states)}`;
    assert.ok((r.send_states ?? []).filter((s) => s === "confirmed").length <= 1, `${what}: confirmed twice`);
    let landed = 0;
    for (const [i, key] of keys.entries()) {
      const paid = await world.paidToPayer(await attemptsOf(world, key));
      if (paid === 0n) continue;
      landed++;
      assert.ok(paid <= BigInt(r.send_amounts?.[i] ?? "0"), `${what}: send ${key} paid ${paid}`);
      assert.ok(paid < BigInt(r.amount_raw), `${what}: sent back ${paid}, not less its fee`);
    }
    assert.ok(landed <= 1, `${what}: ${landed} sends landed on chain`);
  }
}

/**
 * Once settled: no return still sending; a returned one paid its payer exactly its send's amount
 * (once, on the active chain), a payable one nothing since its last send failed; ledger clean.
 */
export async function checkReturnsSettled(world: ReturnsWorld, state: ReturnCaseState): Promise<void> {
  await checkReturnStep(world, state);
  for (const r of await returnsOf(world, state)) {
    const what = `deposit ${r.deposit_id}, return ${r.return_state}, sends ${JSON.stringify(r.send_states)}`;
    assert.notEqual(r.return_state, "sending", `${what}: never settled`);
    const keys = r.send_keys ?? [];
    const last = keys.length - 1;
    if (r.return_state === "returned") {
      assert.equal(r.send_states?.[last], "confirmed", what);
      const paid = await world.paidToPayer(await attemptsOf(world, keys[last] as string));
      assert.equal(paid, BigInt(r.send_amounts?.[last] ?? "-1"), `${what}: returned, paid ${paid}`);
    }
    if (r.return_state === "payable" && last >= 0) {
      assert.equal(r.send_states?.[last], "failed", what);
    }
  }
}
