import { closeSync, existsSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from "node:fs";
import { connect } from "node:net";
import { join } from "node:path";
import type { Logger } from "@mp/core";
import { ConfigError } from "@mp/core";
import { servePglite } from "./pglite-wire-server.ts";

/**
 * The embedded default: PGlite keeps its data under DATA_DIR/pgdata and is served to the `pg`
 * driver on a Unix socket in DATA_DIR (see pglite-wire-server.ts for why not pglite-socket). PGlite allows one process, so the
 * first process to start owns it; every later process (the CLI while the service runs, a second
 * role) connects to that socket instead of opening the files again.
 */
export interface EmbeddedServer {
  connectionString: string;
  /** True when this process started PGlite; false when it joined another process's server. */
  owner: boolean;
  /** The database's files as one tarball (owner only): test databases start from a migrated one. */
  dumpDataDir?(): Promise<Blob>;
  stop(): Promise<void>;
}

const SOCKET_NAME = ".s.PGSQL.5432";
const LOCK_NAME = "embedded.lock";
// Unix socket paths are limited to 107 bytes on Linux.
const MAX_SOCKET_PATH = 107;

export function embeddedConnectionString(dataDir: string): string {
  return `postgres://postgres@localhost/postgres?host=${encodeURIComponent(dataDir)}`;
}

function socketAnswers(path: string): Promise<boolean> {
  return new Promise((resolve) => {
    if (!existsSync(path)) return resolve(false);
    const socket = connect(path);
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Takes DATA_DIR's start lock, or returns false while a live process holds it. */
function tryLock(lockPath: string): boolean {
  try {
    const fd = openSync(lockPath, "wx");
    writeSync(fd, String(process.pid));
    closeSync(fd);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    const holder = Number.parseInt(readFileSync(lockPath, "utf8"), 10);
    if (Number.isInteger(holder) && holder !== process.pid && processAlive(holder)) return false;
    rmSync(lockPath, { force: true });
    return tryLock(lockPath);
  }
}

export async function startEmbedded(options: {
  dataDir: string;
  logger?: Logger;
  /** In-memory database (tests): nothing is written under dataDir but the socket. */
  memory?: boolean;
  /** With `memory`: start from these files (a `dumpDataDir` tarball) instead of an empty database. */
  loadDataDir?: Blob;
}): Promise<EmbeddedServer> {
  const { dataDir, logger } = options;
  mkdirSync(dataDir, { recursive: true });
  const socketPath = join(dataDir, SOCKET_NAME);
  if (socketPath.length > MAX_SOCKET_PATH) {
    throw new ConfigError(
      "DATA_DIR",
      `path too long for the embedded database socket (max ${MAX_SOCKET_PATH - SOCKET_NAME.length - 1} characters)`,
    );
  }
  const connectionString = embeddedConnectionString(dataDir);
  const lockPath = join(dataDir, LOCK_NAME);

  // Another process may be starting the server right now: wait for its socket rather than race it.
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (await socketAnswers(socketPath)) {
      logger?.info("joined the embedded database of another process");
      return { connectionString, owner: false, stop: async () => {} };
    }
    if (tryLock(lockPath)) break;
    if (Date.now() > deadline)
      throw new ConfigError("DATA_DIR", "embedded database is locked by another process that does not answer");
    await new Promise((r) => setTimeout(r, 100));
  }

  const { PGlite } = await import("@electric-sql/pglite");
  rmSync(socketPath, { force: true });
  const db = options.memory
    ? await PGlite.create(options.loadDataDir ? { loadDataDir: options.loadDataDir } : {})
    : await PGlite.create(join(dataDir, "pgdata"));
  const server = await servePglite(db, socketPath);
  logger?.info({ dataDir }, "embedded database started");
  let stopped = false;
  return {
    connectionString,
    owner: true,
    dumpDataDir: () => db.dumpDataDir("none"),
    async stop() {
      if (stopped) return;
      stopped = true;
      await server.close();
      await db.close();
      rmSync(socketPath, { force: true });
      rmSync(lockPath, { force: true });
    },
  };
}
