import type { Logger } from "@mp/core";
import { createDatabase } from "./database.ts";
import type { Database } from "./database-contract.ts";
import { startEmbedded } from "./embedded.ts";

export interface OpenDatabaseOptions {
  /** A real PostgreSQL server; when absent the embedded PGlite under dataDir is used. */
  databaseUrl: string | undefined;
  dataDir: string;
  logger?: Logger;
  poolSize?: number;
}

export interface OpenedDatabase {
  db: Database;
  /** "server" for DATABASE_URL, "embedded" when this process owns PGlite, "embedded-shared" when it joined another's. */
  mode: "server" | "embedded" | "embedded-shared";
}

export async function openDatabase(options: OpenDatabaseOptions): Promise<OpenedDatabase> {
  if (options.databaseUrl) {
    const db = createDatabase({
      connectionString: options.databaseUrl,
      engine: "postgresql",
      max: options.poolSize ?? 10,
      ...(options.logger ? { logger: options.logger } : {}),
    });
    return { db, mode: "server" };
  }
  const embedded = await startEmbedded({
    dataDir: options.dataDir,
    ...(options.logger ? { logger: options.logger } : {}),
  });
  const db = createDatabase({
    connectionString: embedded.connectionString,
    engine: "pglite",
    // PGlite runs one query at a time; a small pool avoids queueing many sockets behind it.
    max: options.poolSize ?? 8,
    ...(options.logger ? { logger: options.logger } : {}),
    onClose: embedded.stop,
  });
  return { db, mode: embedded.owner ? "embedded" : "embedded-shared" };
}
