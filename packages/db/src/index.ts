export type { Database, NamedStatement, Queryable } from "./database.ts";
export { createDatabase, isConnectionError, SqlState, sqlState } from "./database.ts";
export { type EmbeddedServer, embeddedConnectionString, startEmbedded } from "./embedded.ts";
export { MIGRATIONS_DIR, type MigrationResult, migrate } from "./migrate.ts";
export { type OpenedDatabase, openDatabase } from "./open-database.ts";
