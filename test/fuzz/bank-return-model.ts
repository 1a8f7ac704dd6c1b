import { assignStatementLine, importBankStatement, listUnmatchedStatementLines, returnStatementLine } from "@mp/api";
import { AppError } from "@mp/core";
import { SANDBOX_PAYOUT_MAGIC } from "@mp/providers";
import { closeBankReturn, executeTransfersOnce, sendBankReturnAgain } from "@mp/transfers";
import fc from "fast-check";
import { transferTreasury } from "../../services/payments/src/transfer-treasury.ts";
import { type BankReturnCaseState, checkBankReturnStep, checkBankReturnsSettled } from "./bank-return-invariants.ts";
import { dieAtStatement, dyingDatabase, passDyingAt } from "./dying-database.ts";
import { createFaultyBank, type FaultyBank } from "./faulty-bank.ts";
import { noFaults } from "./faulty-fetch.ts";
import { type FuzzCase, fuzzCase } from "./money-model.ts";
import type { FuzzModel, FuzzOutcome } from "./run-money-fuzz.ts";
import type { TransfersFuzzWorld } from "./transfers-fuzz-world.ts";

/** The sandbox bank's payouts complete this long after they were first asked, on the case's clock. */
const PAYOUT_DELAY_MS = 60_000;
const CSV_HEADER =
  "booking_date,account_number,direction,amount,currency,bank_reference,reference,counterparty,counterparty_account,counterparty_routing_number";
/** An account number no virtual account has: the line stays unmatched (suspense). */
const NOBODY = "999999999999";

/**
 * The payers a statement line names: a US account the bank pays, one whose bank refuses the payout
 * (SANDBOX_PAYOUT_MAGIC: FAILED, nothing left), an account with no routing number (the return stays
 * payable), and no account at all (payable).
 */
export const PAYERS = [
  { account: "555566667777", routing: "021000021", ends: "returned" },
  { account: `55556666${SANDBOX_PAYOUT_MAGIC.failSuffix}`, routing: "021000021", ends: "failed" },
  { account: "DE89370400440532013000", routing: "", ends: "payable" },
  { account: "", routing: "", ends: "payable" },
] as const;

/** Whole cents (what a bank pays), the smallest there is among them. */
const AMOUNTS = ["0.01", "12.34", "40.00", "250.00"] as const;

/** What a bank-returns fuzz step does around the statement import, the worker's pass and the bank. */
export type BankReturnStep =
  /**
   * A credit line from `payer`: finance returns it from suspense (`bank return --line`), or it is a
   * late credit to the funded transfer's intent (assigned to it) that the `return` policy takes back.
   */
  | { kind: "line"; origin: "suspense" | "late"; payer: number; amount: string }
  /** `processes` worker passes at once; the first dies at its `dieAt`-th statement (0: never). */
  | { kind: "pass"; processes: 1 | 2; dieAt: number }
  /** A worker pass that dies right after the bank answered its first payout (before recording it). */
  | { kind: "crash" }
  /** The bank's link from now on: perfect, or a fault on this share of calls. */
  | { kind: "faults"; rate: 0 | 0.3 | 0.7 }
  /** The bank's clock moves on (payouts complete PAYOUT_DELAY_MS after they were asked). */
  | { kind: "clock" }
  /**
   * An operator's `bank return-send` on the case's `nth` return (any state: refused unless payable or
   * failed), giving it the `account`-th payer's account (PAYERS: 0 paid, 1 refused) or none.
   */
  | { kind: "send"; nth: number; account: 0 | 1 | undefined }
  /** An operator's `bank return-close` on the case's `nth` return (refused unless payable or failed). */
  | { kind: "close"; nth: number }
  /**
   * The bank's clock moves past every payout, then two worker passes at once, the first one's next
   * bank answer slow: while it waits, the second pass runs and an operator sends again the return
   * that answer is about (with the `account`-th payer's account or none; the case's `nth` return
   * when no call was held); then the slow answer arrives.
   */
  | { kind: "slow"; nth: number; account: 0 | 1 | undefined }
  /** Finance returns the case's `nth` unmatched line again (unmatched once its return was closed). */
  | { kind: "again"; nth: number }
  /**
   * The bank's clock moves past every payout, a worker pass, then the payer's bank sends the case's `nth` paid
   * return back (its current payout, completed at the bank): the bank answers RETURNED (R01) about
   * it from now on. Nothing when none is paid.
   */
  | { kind: "bounce"; nth: number };

export type BankReturnCase = FuzzCase<BankReturnStep>;

/** A pass issues 17 to 42 statements in these cases (measured): a death anywhere in it, or none. */
const dieAt = dieAtStatement(45, 2);

export function bankReturnCase(): fc.Arbitrary<BankReturnCase> {
  const step: fc.Arbitrary<BankReturnStep> = fc.oneof(
    {
      weight: 4,
      arbitrary: fc.record({
        kind: fc.constant("line" as const),
        origin: fc.constantFrom("suspense" as const, "late" as const),
        payer: fc.integer({ min: 0, max: PAYERS.length - 1 }),
        amount: fc.constantFrom(...AMOUNTS),
      }),
    },
    {
      weight: 5,
      arbitrary: fc.record({
        kind: fc.constant("pass" as const),
        processes: fc.constantFrom(1 as const, 2 as const),
        dieAt,
      }),
    },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant("crash" as const) }) },
    { weight: 2, arbitrary: fc.record({ kind: fc.constant("faults" as const), rate: fc.constantFrom(0, 0.3, 0.7) }) },
    { weight: 2, arbitrary: fc.record({ kind: fc.constant("clock" as const) }) },
    {
      weight: 2,
      arbitrary: fc.record({
        kind: fc.constant("send" as const),
        nth: fc.nat(5),
        account: fc.constantFrom(0 as const, 1 as const, undefined),
      }),
    },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant("close" as const), nth: fc.nat(5) }) },
    {
      weight: 2,
      arbitrary: fc.record({
        kind: fc.constant("slow" as const),
        nth: fc.nat(5),
        account: fc.constantFrom(0 as const, 1 as const, undefined),
      }),
    },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant("again" as const), nth: fc.nat(5) }) },
    { weight: 3, arbitrary: fc.record({ kind: fc.constant("bounce" as const), nth: fc.nat(5) }) },
  );
  return fuzzCase(step, 4, 14);
}

/**
 * The bank returns' world: the in-process API, a merchant whose return policy is `return`, its bank
 * customer and a transfer of it funded by bank (its intent takes the late credits; its payout's send
 * never ends here: no chain node).
 */
export interface BankReturnWorld extends TransfersFuzzWorld {
  intentId: string;
}

export interface BankReturnOutcome extends FuzzOutcome {
  returns: number;
  returned: number;
  failed: number;
  payable: number;
  closed: number;
  /** Paid returns the payer's bank sent back (each followed once). */
  sentBack: number;
  bankCalls: number;
  bankFaults: number;
}

let lines = 0;

/** A statement with one credit line from `payer` (sealed on the line at import); its id. */
async function importLine(world: BankReturnWorld, payer: (typeof PAYERS)[number], amount: string): Promise<string> {
  lines++;
  const reference = `BNK-FZ-${lines}-${Date.now()}`;
  const counterparty = payer.account ? `Pat Payer,${payer.account},${payer.routing}` : ",,";
  await importBankStatement(world.t.api.db, {
    fileName: `${reference}.csv`,
    content: `${CSV_HEADER}\n2026-11-28,${NOBODY},CREDIT,${amount},USD,${reference},,${counterparty}\n`,
    operator: "finance",
    keyring: world.t.api.deps.encryption,
  });
  const line = (await listUnmatchedStatementLines(world.t.api.db)).find((l) => l.bankReference === reference);
  if (!line) throw new Error(`line ${reference} is not unmatched`);
  return line.id;
}

/**
 * One case: the steps, the invariants of checkBankReturnStep after each; then settled (the bank
 * perfect, its clock on, passes until no return is sending) and checkBankReturnsSettled.
 */
export async function runBankReturnCase(world: BankReturnWorld, c: BankReturnCase): Promise<BankReturnOutcome> {
  const db = world.t.api.db;
  let skew = 0;
  const bank = createFaultyBank({
    seed: c.faultSeed,
    payoutDelayMs: PAYOUT_DELAY_MS,
    now: () => new Date(Date.now() + skew),
  });
  const state: BankReturnCaseState = {
    merchantId: world.merchant.merchantId,
    lines: [],
    seen: new Map(),
    keys: new Map(),
    accounts: new Map(),
    acted: new Set(),
    bounced: new Set(),
    sentBackPaid: new Set(),
    availableAtStart: await available(world),
  };
  const pass = (on = db) =>
    executeTransfersOnce(on, transferTreasury, {
      bank: {
        banking: bank.provider,
        keyring: world.t.api.deps.encryption,
        retrySeconds: 0,
        pendingCheckSeconds: 0,
        returnCheckSeconds: 0,
      },
    });
  let crashes = 0;
  for (const step of c.steps) {
    if (step.kind === "line") {
      const payer = PAYERS[step.payer] as (typeof PAYERS)[number];
      const lineId = await importLine(world, payer, step.amount);
      if (step.origin === "suspense") {
        await returnStatementLine(db, { lineId, reason: "unknown payer (fuzz)", operator: "finance" });
      } else {
        await assignStatementLine(db, { lineId, intentId: world.intentId, operator: "finance" });
      }
      state.lines.push({
        id: lineId,
        origin: step.origin,
        account: payer.account,
        ends: payer.ends,
        amount: step.amount,
      });
    } else if (step.kind === "pass") {
      const passes: Promise<unknown>[] = [passDyingAt(db, step.dieAt, pass).then((died) => died && crashes++)];
      if (step.processes === 2) passes.push(pass());
      await Promise.all(passes);
    } else if (step.kind === "crash") {
      const dying = dyingDatabase(db, 0);
      bank.dieAfterAnswer(() => dying.kill());
      await pass(dying.db).catch((error: unknown) => {
        if (!dying.dead) throw error;
      });
      bank.dieAfterAnswer(() => undefined);
      if (dying.dead) crashes++;
    } else if (step.kind === "faults") {
      bank.setRate(step.rate);
    } else if (step.kind === "clock") {
      skew += PAYOUT_DELAY_MS / 2;
    } else if (step.kind === "slow") {
      skew += PAYOUT_DELAY_MS;
      const held = bank.holdNext();
      const slow = pass();
      const key = await Promise.race([held.reached, slow.then(() => undefined)]);
      if (key !== undefined) {
        await pass();
        await operatorStep(world, state, { kind: "send", nth: step.nth, account: step.account }, key);
      }
      held.cancel();
      await slow;
    } else if (step.kind === "again") {
      const { rows } = await db.query<{ id: string }>(
        "SELECT id FROM bank_statement_lines WHERE id = ANY($1::uuid[]) AND status = 'UNMATCHED' ORDER BY created_at, id",
        [state.lines.map((l) => l.id)],
      );
      const line = rows[step.nth % Math.max(rows.length, 1)];
      if (line) await returnStatementLine(db, { lineId: line.id, reason: "again (fuzz)", operator: "finance" });
    } else if (step.kind === "bounce") {
      // The bank's clock past every payout and a pass first: more of them are paid to be sent back.
      skew += PAYOUT_DELAY_MS;
      await pass();
      await sendBack(world, bank, state, step.nth);
    } else {
      await operatorStep(world, state, step);
    }
    await checkBankReturnStep(db, bank, state);
  }
  await settle(world, bank, state, pass, () => {
    skew += PAYOUT_DELAY_MS;
  });
  await checkBankReturnsSettled(db, bank, state);
  return outcome(world, bank, state, c.steps.length, crashes);
}

/**
 * An operator's send or close on the case's `nth` bank return (or the one whose payout key is
 * `payoutKey`), whatever its state: a return that is not payable or failed is refused with a typed
 * error (409), as is a send naming no account to a return that knows none (400); anything else
 * thrown fails the case.
 */
async function operatorStep(
  world: BankReturnWorld,
  state: BankReturnCaseState,
  step: Extract<BankReturnStep, { kind: "send" | "close" }>,
  payoutKey?: string,
): Promise<void> {
  const db = world.t.api.db;
  const { rows } = await db.query<{ id: string; payout_key: string }>(
    "SELECT id, payout_key FROM bank_returns WHERE statement_line_id = ANY($1::uuid[]) ORDER BY created_at, id",
    [state.lines.map((l) => l.id)],
  );
  const target = rows.find((r) => r.payout_key === payoutKey) ?? rows[step.nth % Math.max(rows.length, 1)];
  if (!target) return;
  try {
    if (step.kind === "close") {
      await closeBankReturn(db, { returnId: target.id, operator: "finance", reason: "settled by hand (fuzz)" });
    } else {
      const payer = step.account === undefined ? undefined : PAYERS[step.account];
      const account = payer && { name: "Pat Payer", accountNumber: payer.account, routingNumber: payer.routing };
      await sendBankReturnAgain(db, world.t.api.deps.encryption, { returnId: target.id, operator: "finance", account });
      if (payer) state.accounts.set(target.id, [...(state.accounts.get(target.id) ?? []), payer.account]);
    }
    state.acted.add(target.id);
  } catch (error) {
    if (!(error instanceof AppError) || !["conflict", "validation_error"].includes(error.code)) throw error;
  }
}

/**
 * The payer's bank sends back the case's `nth` return whose current payout the bank completed: one
 * `returned` (paid in our books: followed, the money back, once per payout key) or one still
 * `sending` whose completion no pass recorded yet (never paid in our books: failed at the next
 * answer). Recorded in the case's state for the invariants.
 */
async function sendBack(world: BankReturnWorld, bank: FaultyBank, state: BankReturnCaseState, nth: number) {
  const { rows } = await world.t.api.db.query<{ id: string; payout_key: string; state: string }>(
    `SELECT id, payout_key, state FROM bank_returns WHERE statement_line_id = ANY($1::uuid[])
        AND state IN ('sending', 'returned') ORDER BY created_at, id`,
    [state.lines.map((l) => l.id)],
  );
  const paid = [];
  for (const row of rows) if ((await bank.statusOf(row.payout_key)) === "COMPLETED") paid.push(row);
  const target = paid[nth % Math.max(paid.length, 1)];
  if (!target || !(await bank.sendBack(target.payout_key))) return;
  state.bounced.add(target.id);
  if (target.state === "returned") state.sentBackPaid.add(target.payout_key);
}

async function available(world: BankReturnWorld): Promise<bigint> {
  const { rows } = await world.t.api.db.query<{ balance: string }>(
    `SELECT coalesce(b.balance, 0)::text AS balance FROM ledger_accounts a LEFT JOIN account_balances b ON b.account_id = a.id
      WHERE a.merchant_id = $1 AND a.currency = 'USD' AND a.kind = 'merchant_available'`,
    [world.merchant.merchantId],
  );
  return BigInt(rows[0]?.balance ?? "0");
}

/** Faults off: the bank's clock runs, passes until none of the case's returns is sending. */
async function settle(
  world: BankReturnWorld,
  bank: FaultyBank,
  state: BankReturnCaseState,
  pass: () => Promise<unknown>,
  later: () => void,
): Promise<void> {
  const db = world.t.api.db;
  bank.setRate(0);
  const deadline = Date.now() + 60_000;
  for (;;) {
    later();
    await pass();
    await checkBankReturnStep(db, bank, state);
    const { rows } = await db.query<{ moving: number }>(
      `SELECT count(*)::int AS moving FROM bank_statement_lines l
        WHERE l.id = ANY($1::uuid[])
          AND (EXISTS (SELECT 1 FROM bank_returns r WHERE r.statement_line_id = l.id
                        AND (r.state = 'sending' OR (r.state = 'returned' AND r.payout_key::text = ANY($2::text[]))))
               OR (l.bank_deposit_id IS NOT NULL
                   AND NOT EXISTS (SELECT 1 FROM bank_returns r WHERE r.bank_deposit_id = l.bank_deposit_id)))`,
      [state.lines.map((l) => l.id), [...bank.sentBack]],
    );
    if (Number(rows[0]?.moving ?? 0) === 0) return;
    if (Date.now() > deadline) {
      const returns = await db.query(
        "SELECT id, origin, state, reason FROM bank_returns WHERE statement_line_id = ANY($1::uuid[])",
        [state.lines.map((l) => l.id)],
      );
      throw new Error(`bank returns never settled: ${JSON.stringify(returns.rows)}`);
    }
  }
}

async function outcome(
  world: BankReturnWorld,
  bank: FaultyBank,
  state: BankReturnCaseState,
  steps: number,
  crashes: number,
): Promise<BankReturnOutcome> {
  const { rows } = await world.t.api.db.query<{ state: string }>(
    "SELECT state FROM bank_returns WHERE statement_line_id = ANY($1::uuid[])",
    [state.lines.map((l) => l.id)],
  );
  const count = (s: string) => rows.filter((r) => r.state === s).length;
  const f = bank.counts;
  return {
    steps,
    returns: rows.length,
    returned: count("returned"),
    failed: count("failed"),
    payable: count("payable"),
    closed: count("closed"),
    sentBack: bank.sentBack.size,
    bankCalls: f.calls,
    bankFaults: f.refused + f.timeouts + f.lost,
    crashes,
    faults: noFaults(),
  };
}

/** The bank returns' fuzz model (bank-returns-money-fuzz.test.ts runs it on the in-process API). */
export const bankReturnFuzz: FuzzModel<BankReturnWorld, BankReturnCase, BankReturnOutcome> = {
  caseOf: bankReturnCase,
  run: runBankReturnCase,
  describe: (t) =>
    `${t.returns} bank returns (${t.returned} paid, ${t.failed} refused by the payer's bank, ` +
    `${t.payable} payable, ${t.closed} closed; ${t.sentBack} paid ones sent back by the payer's bank), ${t.bankCalls} bank calls (${t.bankFaults} refused, timed out or answer lost)`,
  caseMs: 120_000,
};
