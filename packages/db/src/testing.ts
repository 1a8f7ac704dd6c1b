import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { createDatabase, type Database, type DatabaseEngine } from "./database.ts";
import { startEmbedded } from "./embedded.ts";
import { migrate } from "./migrate.ts";

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
  let connectionString: string;
  let cleanup: () => Promise<void>;
  if (serverUrl) {
    const name = `t_${randomBytes(6).toString("hex")}`;
    const admin = new pg.Client({ connectionString: serverUrl });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
    await admin.end();
    const url = new URL(serverUrl);
    url.pathname = `/${name}`;
    connectionString = url.toString();
    cleanup = async () => {
      const c = new pg.Client({ connectionString: serverUrl });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    };
  } else {
    const dir = mkdtempSync(join(tmpdir(), "mpdb-"));
    const server = await startEmbedded({ dataDir: dir, memory: true });
    connectionString = server.connectionString;
    cleanup = async () => {
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    };
  }
  const db = createDatabase({ connectionString, engine, max: options.poolSize ?? 10 });
  if (options.migrate !== false) await migrate(db);
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
