import type { AppConfig, Logger } from "@mp/core";
import { type Database, migrate, openDatabase } from "@mp/db";

/**
 * What every command needs first: the database (the server at DATABASE_URL, or the embedded one,
 * joined through its socket when another process already runs it), migrated.
 */
export async function openMigratedDatabase(config: AppConfig, logger: Logger): Promise<{ db: Database; mode: string }> {
  const { db, mode } = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, logger });
  try {
    await migrate(db, { logger });
  } catch (error) {
    await db.close();
    throw error;
  }
  return { db, mode };
}
