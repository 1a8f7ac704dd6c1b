import { readFileSync } from "node:fs";
import { silentLogger } from "@mp/core";
import type { Database } from "@mp/db";
import { createTestDatabase } from "@mp/db/testing";
import { createSandboxRateProvider } from "@mp/providers";
import { printTable } from "../../../test/bench/measure.ts";
import { insertDueDeposits, insertMerchantDestinations } from "../../../test/support/due-deposits.ts";
import { confirmDeposits } from "../src/confirm-deposits.ts";

/**
 * `pnpm bench credit [--deposits N] [--rounds R]`: the indexer's confirm-and-credit step alone
 * (confirmDeposits, no node, no scan): N PENDING USDC deposits on BASE spread over 10 merchants with
 * a fee each, all due, credited by calls of confirmDeposits until none is left; credits/s.
 * Each round runs twice on fresh deposits in the same database, with the journal's triggers as
 * migrations/0240 made them (per statement) and as they were before (per row), alternating, so the
 * machine's load weighs on both alike.
 */
export async function runCreditBench(options: { deposits?: number; rounds?: number } = {}): Promise<void> {
  const deposits = options.deposits ?? 5_000;
  const rounds = options.rounds ?? 2;
  const testDb = await createTestDatabase();
  try {
    const db = testDb.db;
    const destinations = await insertMerchantDestinations(db, 10, "Credit bench");
    const rows: Array<Record<string, string | number>> = [];
    const rates: Record<string, number[]> = { "per statement (0240)": [], "per row (before 0240)": [] };
    let height = 1_000;
    for (let round = 1; round <= rounds; round++) {
      for (const triggers of Object.keys(rates)) {
        await installTriggers(db, triggers === "per row (before 0240)");
        height += 10;
        await insertDueDeposits(db, destinations, deposits, height);
        const started = performance.now();
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
          if (confirmed === 0) break;
          credited += confirmed;
        }
        const ms = performance.now() - started;
        const perSecond = (credited * 1000) / ms;
        rates[triggers]?.push(perSecond);
        rows.push({ round, triggers, credited, ms: Math.round(ms), "credits/s": Math.round(perSecond) });
      }
    }
    await installTriggers(db, false);
    const mean = (xs: number[] = []) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
    rows.push({
      round: "mean",
      triggers: "per statement / per row",
      credited: 0,
      ms: 0,
      "credits/s": `${(mean(rates["per statement (0240)"]) / mean(rates["per row (before 0240)"])).toFixed(2)}x`,
    });
    printTable(
      `indexer confirm and credit alone: ${deposits.toLocaleString("en")} due deposits per run, 10 merchants (${
        process.env.DATABASE_URL ? "PostgreSQL server" : "PGlite"
      })`,
      rows,
    );
  } finally {
    await testDb.drop();
  }
}

/** The pre-0240 per-row triggers (migrations/0011, 0078), or 0240's per-statement ones. */
async function installTriggers(db: Database, perRow: boolean): Promise<void> {
  await db.query(`
    DROP TRIGGER IF EXISTS journal_lines_apply_to_balances ON journal_lines;
    DROP TRIGGER IF EXISTS journal_lines_apply_to_balance ON journal_lines;
    DROP TRIGGER IF EXISTS events_webhook_fan_out ON events;`);
  if (!perRow) {
    const migration = readFileSync(
      new URL("../../../migrations/0240_statement_level_ledger_triggers.sql", import.meta.url),
      "utf8",
    );
    await db.query(
      migration
        .replace("DROP TRIGGER journal_lines_apply_to_balance ON journal_lines;", "")
        .replace("DROP FUNCTION journal_line_apply_to_balance();", "")
        .replace("DROP TRIGGER events_webhook_fan_out ON events;", "")
        .replace(
          "CREATE FUNCTION journal_lines_apply_to_balances",
          "CREATE OR REPLACE FUNCTION journal_lines_apply_to_balances",
        ),
    );
    return;
  }
  await db.query(`
    CREATE OR REPLACE FUNCTION journal_line_apply_to_balance() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      UPDATE account_balances b
         SET balance = b.balance + CASE WHEN NEW.side = a.normal_side THEN NEW.amount ELSE -NEW.amount END,
             updated_at = now()
        FROM ledger_accounts a
       WHERE b.account_id = NEW.account_id AND a.id = NEW.account_id;
      IF NOT FOUND THEN
        RAISE EXCEPTION 'ledger account % has no balance row', NEW.account_id USING ERRCODE = 'foreign_key_violation';
      END IF;
      RETURN NULL;
    END;
    $$;
    CREATE TRIGGER journal_lines_apply_to_balance AFTER INSERT ON journal_lines
      FOR EACH ROW EXECUTE FUNCTION journal_line_apply_to_balance();
    CREATE OR REPLACE FUNCTION journal_lines_check_balanced() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM journal_entry_assert_balanced(NEW.entry_id);
      RETURN NULL;
    END;
    $$;
    CREATE OR REPLACE FUNCTION webhook_fan_out() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      INSERT INTO webhook_deliveries (id, merchant_id, endpoint_id, event_id, event_type)
      SELECT gen_random_uuid(), NEW.merchant_id, e.id, NEW.id, NEW.type
        FROM webhook_endpoints e
       WHERE e.merchant_id = NEW.merchant_id
         AND e.status = 'enabled'
         AND (e.enabled_events @> ARRAY['*'] OR e.enabled_events @> ARRAY[NEW.type]);
      IF FOUND THEN
        PERFORM pg_notify('webhook_deliveries', '');
      END IF;
      RETURN NULL;
    END
    $$;
    CREATE TRIGGER events_webhook_fan_out AFTER INSERT ON events
      FOR EACH ROW EXECUTE FUNCTION webhook_fan_out();`);
}
