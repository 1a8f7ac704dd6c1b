import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { Logger } from "@mp/core";
import type { Database } from "./database-contract.ts";
import { SqlState, sqlState } from "./sql-state.ts";

export const MIGRATIONS_DIR = fileURLToPath(new URL("../../../migrations/", import.meta.url));

// Any constant shared by every process of the deployment; only migrations take it.
const MIGRATION_LOCK_ID = 7_245_001;

export interface MigrationResult {
  applied: string[];
}

/**
 * Applies the numbered plain-SQL files of migrations/ that the database has not recorded, in name
 * order, each in its own transaction. A transaction-level advisory lock makes concurrent starts
 * safe: the second waits, then finds the work done.
 */
export async function migrate(db: Database, options: { dir?: string; logger?: Logger } = {}): Promise<MigrationResult> {
  const dir = options.dir ?? MIGRATIONS_DIR;
  const files = readdirSync(dir)
    .filter((f) => /^\d{4}_[\w-]+\.sql$/.test(f))
    .sort();
  const recorded = await recordedMigrations(db);
  const applied: string[] = [];
  // Every start runs this: an up-to-date database costs one query, not a transaction per file.
  for (const file of files.filter((f) => !recorded.has(f))) {
    const sql = readFileSync(`${dir}/${file}`, "utf8");
    const ran = await db.tx(async (client) => {
      await client.query("SELECT pg_advisory_xact_lock($1)", [MIGRATION_LOCK_ID]);
      await client.query(
        "CREATE TABLE IF NOT EXISTS schema_migrations (name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())",
      );
      const done = await client.query("SELECT 1 FROM schema_migrations WHERE name = $1", [file]);
      if (done.rowCount) return false;
      await client.query(sql);
      await client.query("INSERT INTO schema_migrations (name) VALUES ($1)", [file]);
      return true;
    });
    if (ran) {
      applied.push(file);
      options.logger?.info({ migration: file }, "migration applied");
    }
  }
  return { applied };
}

/** The migrations the database has recorded (none before the first). Checked again under the lock. */
async function recordedMigrations(db: Database): Promise<Set<string>> {
  try {
    const rows = await db.query<{ name: string }>("SELECT name FROM schema_migrations");
    return new Set(rows.rows.map((r) => r.name));
  } catch (error) {
    if (sqlState(error) === SqlState.undefinedTable) return new Set();
    throw error;
  }
}
