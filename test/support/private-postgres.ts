import { execFile, execFileSync } from "node:child_process";
import { chownSync, existsSync, mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { createDatabase, migrate } from "@mp/db";
import type { TestDatabase } from "@mp/db/testing";
import pg from "pg";

const run = promisify(execFile);

/** Where Debian's postgresql-15 puts its server binaries (the CI image's and this machine's). */
export const POSTGRES_BIN = process.env.POSTGRES_BIN ?? "/usr/lib/postgresql/15/bin";

/** Why a private cluster cannot start here, or undefined when it can. */
export function privatePostgresUnavailable(): string | undefined {
  for (const tool of ["initdb", "pg_ctl", "postgres"]) {
    if (!existsSync(join(POSTGRES_BIN, tool))) return `no ${tool} in ${POSTGRES_BIN} (set POSTGRES_BIN)`;
  }
  return undefined;
}

/**
 * A PostgreSQL cluster of one test's own, so the test can restart and stop the server: the shared
 * server on DATABASE_URL serves other test files at the same time and must never go down.
 */
export interface PrivatePostgres {
  /** A migrated database on the cluster. */
  readonly database: TestDatabase;
  /** `pg_ctl restart -m fast`: every session is ended, the server is back when it resolves. */
  restart(): Promise<void>;
  /** `pg_ctl stop -m fast`: the server is down until `start`. */
  stop(): Promise<void>;
  start(): Promise<void>;
  /** Stops the cluster (`-m immediate`) and deletes its files. */
  close(): Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() =>
        typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port")),
      );
    });
  });
}

/**
 * initdb + pg_ctl start in a temp dir. PostgreSQL refuses to run as root: as root, the binaries run
 * as the `postgres` OS user (runuser) and the directory is given to it.
 */
export async function startPrivatePostgres(): Promise<PrivatePostgres> {
  const dir = mkdtempSync(join(tmpdir(), "mppriv-"));
  const asRoot = process.getuid?.() === 0;
  if (asRoot) {
    const uid = Number(execFileSync("id", ["-u", "postgres"]).toString());
    const gid = Number(execFileSync("id", ["-g", "postgres"]).toString());
    chownSync(dir, uid, gid);
  }
  const tool = (name: string, args: string[]) =>
    asRoot
      ? run("runuser", ["-u", "postgres", "--", join(POSTGRES_BIN, name), ...args])
      : run(join(POSTGRES_BIN, name), args);
  const data = join(dir, "data");
  const port = await freePort();
  // fsync off: the cluster is thrown away; a fast shutdown still writes its checkpoint.
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off`;
  const pgCtl = (args: string[]) => tool("pg_ctl", ["-D", data, "-l", join(dir, "log"), "-w", "-t", "30", ...args]);
  let started = false;
  try {
    await tool("initdb", ["-D", data, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync"]);
    await pgCtl(["-o", options, "start"]);
    started = true;
    const admin = new pg.Client({ connectionString: `postgres://postgres@127.0.0.1:${port}/postgres` });
    await admin.connect();
    await admin.query("CREATE DATABASE payments");
    await admin.end();
    const connectionString = `postgres://postgres@127.0.0.1:${port}/payments`;
    const db = createDatabase({ connectionString, engine: "postgresql", max: 4 });
    await migrate(db);
    const close = async () => {
      await db.close().catch(() => {});
      await pgCtl(["-m", "immediate", "stop"]).catch(() => {});
      rmSync(dir, { recursive: true, force: true });
    };
    return {
      database: { db, connectionString, drop: close },
      restart: async () => void (await pgCtl(["-m", "fast", "-o", options, "restart"])),
      stop: async () => void (await pgCtl(["-m", "fast", "stop"])),
      start: async () => void (await pgCtl(["-o", options, "start"])),
      close,
    };
  } catch (error) {
    if (started) await pgCtl(["-m", "immediate", "stop"]).catch(() => {});
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}
