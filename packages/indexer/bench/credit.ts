import { readFileSync } from "node:fs";
import { loadavg } from "node:os";
import { cpuUsage } from "node:process";
import { silentLogger } from "@mp/core";
import type { Database } from "@mp/db";
import { createTestDatabase } from "@mp/db/testing";
import { createSandboxRateProvider } from "@mp/providers";
import { printTable } from "../../../test/bench/measure.ts";
import { insertDueDeposits, insertMerchantDestinations } from "../../../test/support/due-deposits.ts";
import { confirmDeposits } from "../src/confirm-deposits.ts";

/**
 * The changes this bench can set against the state before them (`--compare`): the journal's checks
 * of 0320-0321, the merchant references of 0330 (checked per statement, not by foreign keys), or
 * the indexes 0370-0372 dropped from deposits, events and journal entries.
 */
const COMPARISONS = {
  "0320": { label: "0320-0321", install: installChecks },
  "0330": { label: "0330", install: installMerchantChecks },
  "0370": { label: "0370-0372", install: installCreditIndexes },
} as const;
export type CreditComparison = keyof typeof COMPARISONS;

/**
 * `pnpm bench credit [--deposits N] [--rounds R] [--compare 0330|0320|0370]`: the indexer's confirm-and-credit step alone
 * (confirmDeposits, no node, no scan): N PENDING USDC deposits on BASE spread over 10 merchants with
 * a fee each, all due, credited by calls of confirmDeposits until none is left; credits/s, the
 * machine's load, and the CPU the database's backends (when the server runs on this machine and
 * /proc shows them) and this process spent on it.
 * Each round runs twice on fresh deposits in the same database, with the checks as the compared
 * migrations made them and as they were before, alternating, so the machine's load weighs on both
 * alike: 0330 (default), the merchant of journal entries and events checked once per statement
 * against a foreign key each; 0320, the journal's checks of 0320-0321 (one balance check per
 * transaction, the lines' references per statement) against a deferred check per entry and per line
 * and two foreign keys per line; 0370, the indexes of 0370-0372 (6 fewer index entries per credit)
 * against those before them. Then one batch again, timed statement by statement: where the time
 * goes.
 */
export async function runCreditBench(
  options: { deposits?: number; rounds?: number; compare?: CreditComparison } = {},
): Promise<void> {
  const deposits = options.deposits ?? 5_000;
  const rounds = options.rounds ?? 2;
  const comparison = COMPARISONS[options.compare ?? "0330"];
  const AFTER = comparison.label;
  const BEFORE = `before ${AFTER}`;
  const testDb = await createTestDatabase();
  try {
    const db = testDb.db;
    const statements = timeStatements(db);
    const destinations = await insertMerchantDestinations(db, 10, "Credit bench");
    const rows: Array<Record<string, string | number>> = [];
    const rates: Record<string, number[]> = { [BEFORE]: [], [AFTER]: [] };
    let height = 1_000;
    const creditAll = async () => {
      let credited = 0;
      for (;;) {
        const { confirmed } = await confirmDeposits({
          db,
          chain: "BASE",
          head: height + 5,
          rates: createSandboxRateProvider(),
          logger: silentLogger(),
          failpoint: () => undefined,
          fence: async () => undefined,
        });
        if (confirmed === 0) return credited;
        credited += confirmed;
      }
    };
    for (let round = 1; round <= rounds; round++) {
      for (const checks of [BEFORE, AFTER]) {
        await comparison.install(db, checks === BEFORE);
        height += 10;
        await insertDueDeposits(db, destinations, deposits, height);
        const serverBefore = await serverCpuMs(db);
        const nodeBefore = cpuUsage();
        const started = performance.now();
        const credited = await creditAll();
        const ms = performance.now() - started;
        const node = cpuUsage(nodeBefore);
        const server = await serverCpuMs(db);
        const perSecond = (credited * 1000) / ms;
        rates[checks]?.push(perSecond);
        rows.push({
          round,
          checks,
          credited,
          ms: Math.round(ms),
          "credits/s": Math.round(perSecond),
          "db CPU ms": server === null || serverBefore === null ? "?" : server - serverBefore,
          "node CPU ms": Math.round((node.user + node.system) / 1000),
          load: loadavg()[0]?.toFixed(1) ?? "?",
        });
      }
    }
    const mean = (xs: number[] = []) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
    rows.push({
      round: "mean",
      checks: `${AFTER} / ${BEFORE}`,
      credited: 0,
      ms: 0,
      "credits/s": `${(mean(rates[AFTER]) / mean(rates[BEFORE])).toFixed(2)}x`,
      "db CPU ms": "",
      "node CPU ms": "",
      load: "",
    });
    const engine = process.env.DATABASE_URL ? "PostgreSQL server" : "PGlite";
    printTable(
      `indexer confirm and credit alone: ${deposits.toLocaleString("en")} due deposits per run, 10 merchants, ${BEFORE} and after (${engine})`,
      rows,
    );

    // Where the time goes: one batch (at most 2,000, the indexer's) with the migrations' checks, each
    // statement's time from its sending to its answer (the wait for this loaded machine included;
    // statements sent together each count from the same sending).
    await comparison.install(db, false);
    height += 10;
    await insertDueDeposits(db, destinations, Math.min(deposits, 2_000), height);
    statements.start();
    const started = performance.now();
    await creditAll();
    const total = performance.now() - started;
    const timed = statements.stop();
    const inStatements = timed.reduce((sum, s) => sum + s.ms, 0);
    printTable("indexer confirm and credit: one batch statement by statement", [
      ...timed.map((s) => ({ statement: s.text, ms: Math.round(s.ms) })),
      // Statements sent together (pipelined) overlap: then this is less than the JavaScript's share.
      { statement: "(total minus the statements: rates, screening, JavaScript)", ms: Math.round(total - inStatements) },
      { statement: "total", ms: Math.round(total) },
    ]);
  } finally {
    await testDb.drop();
  }
}

/**
 * The CPU time so far of every backend of this database, from /proc (the server on this machine,
 * readable by this user), or null where it is not.
 */
async function serverCpuMs(db: Database): Promise<number | null> {
  const { rows } = await db.query<{ pid: number }>(
    "SELECT pid FROM pg_stat_activity WHERE datname = current_database()",
  );
  let ticks = 0;
  try {
    for (const { pid } of rows) {
      // Fields after the command's closing parenthesis: utime and stime are the 12th and 13th.
      const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.split(" ") ?? [];
      ticks += Number(fields[11]) + Number(fields[12]);
    }
  } catch {
    return null;
  }
  // Clock ticks of 10 ms (USER_HZ 100 on Linux).
  return Number.isFinite(ticks) ? ticks * 10 : null;
}

/** Times the statements sent on the pool's connections while started, in the order they answered. */
function timeStatements(db: Database): { start(): void; stop(): Array<{ text: string; ms: number }> } {
  let timed: Array<{ text: string; ms: number }> | null = null;
  db.pool.on("connect", (client) => {
    const query = client.query.bind(client) as (...args: unknown[]) => unknown;
    (client as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
      const first = args[0] as string | { text: string };
      const text = (typeof first === "string" ? first : first.text).replace(/\s+/g, " ").slice(0, 70);
      const sent = performance.now();
      const answer = query(...args);
      if (answer instanceof Promise) {
        answer.then(
          () => timed?.push({ text, ms: performance.now() - sent }),
          () => undefined,
        );
      }
      return answer;
    };
  });
  return {
    start() {
      timed = [];
    },
    stop() {
      const result = timed ?? [];
      timed = null;
      return result;
    },
  };
}

/** A migration file's text. */
function migration(file: string): string {
  return readFileSync(new URL(`../../../migrations/${file}`, import.meta.url), "utf8");
}

/**
 * The journal's checks as migrations 0320-0321 made them, or as they were before: 0011's deferred
 * balance check per entry and per line (with 0240's shortcut for a line of an entry of the same
 * transaction), the lines' two foreign keys (NOT VALID: checked for new rows only, as before), and
 * 0240's balance trigger without the references check.
 */
async function installChecks(db: Database, before: boolean): Promise<void> {
  await db.query(`
    DROP TRIGGER IF EXISTS journal_entries_balanced ON journal_entries;
    DROP TRIGGER IF EXISTS journal_lines_balanced ON journal_lines;
    DROP TRIGGER IF EXISTS journal_entries_unchecked ON journal_entries;
    DROP TRIGGER IF EXISTS journal_lines_unchecked ON journal_lines;
    ALTER TABLE journal_lines DROP CONSTRAINT IF EXISTS journal_lines_entry_id_fkey;
    ALTER TABLE journal_lines DROP CONSTRAINT IF EXISTS journal_lines_account_id_currency_fkey;`);
  const balanceTrigger = (file: string, fromLine: string, toLine: string) => {
    const text = migration(file);
    return text.slice(text.indexOf(fromLine), text.indexOf(toLine, text.indexOf(fromLine)) + toLine.length);
  };
  if (!before) {
    await db.query(
      balanceTrigger(
        "0321_journal_lines_references_per_statement.sql",
        "CREATE OR REPLACE FUNCTION journal_lines_apply_to_balances",
        "$$;",
      ),
    );
    await db.query(`
      CREATE TRIGGER journal_entries_unchecked AFTER INSERT ON journal_entries
        REFERENCING NEW TABLE AS new_entries FOR EACH STATEMENT EXECUTE FUNCTION journal_entries_unchecked();
      CREATE TRIGGER journal_lines_unchecked AFTER INSERT ON journal_lines
        REFERENCING NEW TABLE AS new_lines FOR EACH STATEMENT EXECUTE FUNCTION journal_lines_unchecked();`);
    return;
  }
  await db.query(
    balanceTrigger(
      "0240_statement_level_ledger_triggers.sql",
      "CREATE FUNCTION journal_lines_apply_to_balances",
      "$$;",
    ).replace("CREATE FUNCTION", "CREATE OR REPLACE FUNCTION"),
  );
  await db.query(
    balanceTrigger(
      "0240_statement_level_ledger_triggers.sql",
      "CREATE OR REPLACE FUNCTION journal_lines_check_balanced",
      "$$;",
    ),
  );
  await db.query(`
    CREATE OR REPLACE FUNCTION journal_entries_check_balanced() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM journal_entry_assert_balanced(NEW.id);
      RETURN NULL;
    END;
    $$;
    CREATE CONSTRAINT TRIGGER journal_entries_balanced AFTER INSERT ON journal_entries
      DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION journal_entries_check_balanced();
    CREATE CONSTRAINT TRIGGER journal_lines_balanced AFTER INSERT ON journal_lines
      DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION journal_lines_check_balanced();
    ALTER TABLE journal_lines ADD CONSTRAINT journal_lines_entry_id_fkey
      FOREIGN KEY (entry_id) REFERENCES journal_entries (id) NOT VALID;
    ALTER TABLE journal_lines ADD CONSTRAINT journal_lines_account_id_currency_fkey
      FOREIGN KEY (account_id, currency) REFERENCES ledger_accounts (id, currency) NOT VALID;`);
}

/**
 * The merchant references of journal_entries and events as 0330 checks them (one statement-level
 * trigger per insert), or as before (a foreign key each, NOT VALID: checked for new rows only, as
 * before: one RI trigger call per row).
 */
async function installMerchantChecks(db: Database, before: boolean): Promise<void> {
  await db.query(`
    DROP TRIGGER IF EXISTS journal_entries_merchant_exists ON journal_entries;
    DROP TRIGGER IF EXISTS events_merchant_exists ON events;
    ALTER TABLE journal_entries DROP CONSTRAINT IF EXISTS journal_entries_merchant_id_fkey;
    ALTER TABLE events DROP CONSTRAINT IF EXISTS events_merchant_id_fkey;`);
  if (before) {
    await db.query(`
      ALTER TABLE journal_entries ADD CONSTRAINT journal_entries_merchant_id_fkey
        FOREIGN KEY (merchant_id) REFERENCES merchants (id) NOT VALID;
      ALTER TABLE events ADD CONSTRAINT events_merchant_id_fkey
        FOREIGN KEY (merchant_id) REFERENCES merchants (id) NOT VALID;`);
    return;
  }
  await db.query(`
    CREATE TRIGGER journal_entries_merchant_exists AFTER INSERT ON journal_entries
      REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION merchant_references_exist();
    CREATE TRIGGER events_merchant_exists AFTER INSERT ON events
      REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION merchant_references_exist();`);
}

/**
 * The indexes of deposits, events and journal entries as 0370-0372 left them, or as they were before:
 * deposits_merchant_status_created and deposits_wallet, deposits_merchant_created without status and
 * without the partial PENDING and REVERSED ones, events_merchant_object, events_created, and the
 * unique indexes on events.seq and journal_entries.seq.
 */
async function installCreditIndexes(db: Database, before: boolean): Promise<void> {
  await db.query(`
    DROP INDEX IF EXISTS deposits_merchant_created;
    DROP INDEX IF EXISTS deposits_merchant_status_created;
    DROP INDEX IF EXISTS deposits_merchant_pending;
    DROP INDEX IF EXISTS deposits_merchant_reversed;
    DROP INDEX IF EXISTS deposits_wallet;
    DROP INDEX IF EXISTS events_merchant_object;
    DROP INDEX IF EXISTS events_created;
    ALTER TABLE events DROP CONSTRAINT IF EXISTS events_seq_key;
    ALTER TABLE journal_entries DROP CONSTRAINT IF EXISTS journal_entries_seq_key;`);
  if (before) {
    await db.query(`
      CREATE INDEX deposits_merchant_created ON deposits (merchant_id, created_at DESC, id DESC);
      CREATE INDEX deposits_merchant_status_created ON deposits (merchant_id, status, created_at DESC, id DESC);
      CREATE INDEX deposits_wallet ON deposits (wallet_id);
      CREATE INDEX events_merchant_object ON events (merchant_id, object_id);
      CREATE INDEX events_created ON events (created_at);
      ALTER TABLE events ADD CONSTRAINT events_seq_key UNIQUE (seq);
      ALTER TABLE journal_entries ADD CONSTRAINT journal_entries_seq_key UNIQUE (seq);`);
    return;
  }
  // The migrations' own statements, but for their DROPs (done above, IF EXISTS).
  for (const file of ["0370_deposits_fewer_indexes_per_credit.sql", "0371_events_fewer_indexes.sql"]) {
    const creates = migration(file)
      .replace(/^--.*$/gm, "")
      .split(";")
      .map((statement) => statement.trim())
      .filter((statement) => statement.startsWith("CREATE INDEX"));
    for (const statement of creates) await db.query(statement);
  }
}
