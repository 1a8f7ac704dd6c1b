import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { silentLogger } from "@mp/core";
import type { Database } from "@mp/db";
import { createTestDatabase } from "@mp/db/testing";
import { createSandboxRateProvider } from "@mp/providers";
import { printTable } from "../../../test/bench/measure.ts";
import { insertMerchantWithCustomer } from "../../../test/support/db-fixtures.ts";
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
    const destinations = await insertDestinations(db, 10);
    const rows: Array<Record<string, string | number>> = [];
    const rates: Record<string, number[]> = { "per statement (0240)": [], "per row (before 0240)": [] };
    let height = 1_000;
    for (let round = 1; round <= rounds; round++) {
      for (const triggers of Object.keys(rates)) {
        await installTriggers(db, triggers === "per row (before 0240)");
        height += 10;
        await insertPendingDeposits(db, destinations, deposits, height);
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

interface Destination {
  id: string;
  walletId: string;
  merchantId: string;
  customerId: string;
}

async function insertDestinations(db: Database, count: number): Promise<Destination[]> {
  const out: Destination[] = [];
  for (let i = 0; i < count; i++) {
    const { merchantId, customerId } = await insertMerchantWithCustomer(db, `Credit bench ${i}`, {
      feeBps: 100,
      feeFixedMicros: 10_000n,
    });
    const walletId = randomUUID();
    const id = randomUUID();
    await db.query(
      "INSERT INTO wallets (id, merchant_id, customer_id, label, derivation_index) VALUES ($1, $2, $3, 'bench', 0)",
      [walletId, merchantId, customerId],
    );
    const address = `0x${(i + 1).toString(16).padStart(40, "0")}`;
    await db.query(
      `INSERT INTO destinations (id, wallet_id, merchant_id, chain, address, address_key, derivation_path)
       VALUES ($1, $2, $3, 'BASE', $4, $4, 'm/bench')`,
      [id, walletId, merchantId, address],
    );
    out.push({ id, walletId, merchantId, customerId });
  }
  return out;
}

async function insertPendingDeposits(db: Database, to: Destination[], count: number, height: number): Promise<void> {
  await db.query(
    `INSERT INTO deposits (id, merchant_id, wallet_id, destination_id, customer_id, chain, asset, contract_address,
       from_address, to_address, tx_hash, position, block_height, block_hash, decimals, amount_raw, required_confirmations)
     SELECT gen_random_uuid(), d.merchant_id, d.wallet_id, d.destination_id, d.customer_id, 'BASE', 'USDC',
            '0x' || lpad('a', 40, '0'), '0x' || lpad('b', 40, '0'), '0x' || lpad(to_hex(d.ord), 40, '0'),
            '0x' || md5(random()::text) || md5(random()::text), g::text, $4::bigint, '0xblock' || $4, 6,
            1000000 + g, 3
       FROM generate_series(1, $1::int) AS g
       JOIN unnest($2::uuid[], $3::uuid[]) WITH ORDINALITY AS x(destination_id, wallet_id, ord) ON x.ord = 1 + g % $5
       JOIN LATERAL (SELECT w.merchant_id, w.customer_id, x.wallet_id, x.destination_id, x.ord
                       FROM wallets w WHERE w.id = x.wallet_id) d ON true`,
    [count, to.map((d) => d.id), to.map((d) => d.walletId), height, to.length],
  );
  await db.query(
    `INSERT INTO chain_cursors (chain, indexed_height, head_height) VALUES ('BASE', $1, $1)
     ON CONFLICT (chain) DO UPDATE SET indexed_height = $1, head_height = $1`,
    [height + 5],
  );
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
