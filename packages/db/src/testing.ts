import { createHash, randomBytes } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { createDatabase } from "./database.ts";
import type { Database, DatabaseEngine } from "./database-contract.ts";
import { startEmbedded } from "./embedded.ts";
import { MIGRATIONS_DIR, migrate } from "./migrate.ts";
import { SqlState, sqlState } from "./sql-state.ts";

export interface TestDatabase {
  db: Database;
  connectionString: string;
  /** Closes the pool and drops the database (server) or stops PGlite (embedded). */
  drop(): Promise<void>;
}

/**
 * A fresh, migrated database for one test file, so files run in parallel without sharing rows:
 * a new database on the server named by DATABASE_URL, or else a new in-memory PGlite behind its
 * own socket.
 */
export async function createTestDatabase(
  options: { migrate?: boolean; poolSize?: number } = {},
): Promise<TestDatabase> {
  const serverUrl = process.env.DATABASE_URL;
  const engine: DatabaseEngine = serverUrl ? "postgresql" : "pglite";
  const wantMigrated = options.migrate !== false;
  const { connectionString, cleanup } = serverUrl
    ? await serverTestDatabase(serverUrl, wantMigrated)
    : await embeddedTestDatabase(wantMigrated);
  // Tests queue many statements at once on a machine that may be loaded: waiting for a connection is
  // not what they test, so it may take a minute before counting as an outage.
  const db = createDatabase({ connectionString, engine, max: options.poolSize ?? 10, connectionTimeoutMs: 60_000 });
  let dropped = false;
  return {
    db,
    connectionString,
    async drop() {
      if (dropped) return;
      dropped = true;
      await db.close();
      await cleanup();
    },
  };
}

function databaseUrl(serverUrl: string, name: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/** The migration files' names and contents, hashed: a template is reused only for the same set. */
function migrationsHash(): string {
  const hash = createHash("sha256");
  for (const file of readdirSync(MIGRATIONS_DIR).sort()) {
    hash.update(file);
    hash.update(readFileSync(`${MIGRATIONS_DIR}/${file}`));
  }
  return hash.digest("hex").slice(0, 16);
}

let templateName: Promise<string> | undefined;

/**
 * The name of a database on the server holding every migration, made once per set of migrations
 * (by whichever test process needs it first: it migrates a database of its own, then renames it to
 * the template's name; a process that loses that race drops its copy and uses the winner's).
 */
function migratedTemplate(serverUrl: string): Promise<string> {
  templateName ??= (async () => {
    const name = `t_tpl_${migrationsHash()}`;
    const admin = new pg.Client({ connectionString: serverUrl });
    await admin.connect();
    try {
      const exists = await admin.query("SELECT 1 FROM pg_database WHERE datname = $1", [name]);
      if (exists.rowCount) return name;
      const building = `t_tplb_${randomBytes(6).toString("hex")}`;
      await admin.query(`CREATE DATABASE ${building}`);
      const db = createDatabase({ connectionString: databaseUrl(serverUrl, building), engine: "postgresql", max: 1 });
      try {
        await migrate(db);
      } finally {
        await db.close();
      }
      try {
        await admin.query(`ALTER DATABASE ${building} RENAME TO ${name}`);
      } catch (error) {
        await admin.query(`DROP DATABASE IF EXISTS ${building}`);
        if (sqlState(error) !== SqlState.duplicateDatabase) throw error;
      }
      return name;
    } finally {
      await admin.end();
    }
  })();
  templateName.catch(() => {
    templateName = undefined;
  });
  return templateName;
}

function pgliteSnapshotPath(): string {
  return join(tmpdir(), `mp-pglite-migrated-${migrationsHash()}.tar`);
}

function readPgliteSnapshot(): Blob | undefined {
  try {
    return new Blob([readFileSync(pgliteSnapshotPath())]);
  } catch {
    return undefined;
  }
}

/** Written whole or not at all: another test process may read it at any moment. */
function writePgliteSnapshot(bytes: Uint8Array): void {
  const path = pgliteSnapshotPath();
  const partial = `${path}.${process.pid}.${randomBytes(4).toString("hex")}`;
  writeFileSync(partial, bytes);
  renameSync(partial, path);
}

interface NewTestDatabase {
  connectionString: string;
  cleanup(): Promise<void>;
}

/**
 * A new database on the server, migrated unless asked not to. A migrated one is a copy of the migrations' template (CREATE
 * DATABASE ... TEMPLATE copies files: ~0.1 s against 1-5 s to run every migration again).
 */
async function serverTestDatabase(serverUrl: string, migrated: boolean): Promise<NewTestDatabase> {
  const name = `t_${randomBytes(6).toString("hex")}`;
  const template = migrated ? await migratedTemplate(serverUrl) : undefined;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    await admin.query(template ? `CREATE DATABASE ${name} TEMPLATE ${template}` : `CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  return {
    connectionString: databaseUrl(serverUrl, name),
    async cleanup() {
      const c = new pg.Client({ connectionString: serverUrl });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}

/**
 * A new in-memory PGlite behind its own socket, migrated unless asked not to. A migrated one starts from the migrations'
 * snapshot (PGlite's initdb and every migration cost 3-5x more than loading its files), made by the
 * first test process that needs it.
 */
async function embeddedTestDatabase(migrated: boolean): Promise<NewTestDatabase> {
  const dir = mkdtempSync(join(tmpdir(), "mpdb-"));
  const snapshot = migrated ? readPgliteSnapshot() : undefined;
  const server = await startEmbedded({ dataDir: dir, memory: true, ...(snapshot ? { loadDataDir: snapshot } : {}) });
  if (migrated && !snapshot) {
    const db = createDatabase({ connectionString: server.connectionString, engine: "pglite", max: 1 });
    try {
      await migrate(db);
    } finally {
      await db.close();
    }
    const dump = await server.dumpDataDir?.();
    if (dump) writePgliteSnapshot(new Uint8Array(await dump.arrayBuffer()));
  }
  return {
    connectionString: server.connectionString,
    async cleanup() {
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
