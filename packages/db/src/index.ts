export { createDatabase } from "./database.ts";
export type { Database, DatabaseEngine, Queryable } from "./database-contract.ts";
export { type EmbeddedServer, embeddedConnectionString, startEmbedded } from "./embedded.ts";
export { insertReturning } from "./insert-returning.ts";
export { createLeaseKeeper, type LeaseKeeper, type LeaseKeeperOptions } from "./lease-keeper.ts";
export {
  assertLeader,
  LeadershipLostError,
  type Lease,
  releaseLease,
  renewLeases,
  tryAcquireLease,
} from "./leases.ts";
export { MIGRATIONS_DIR, type MigrationResult, migrate } from "./migrate.ts";
export { type NamedStatement, queryNamed } from "./named-statement.ts";
export { type OpenedDatabase, openDatabase } from "./open-database.ts";
export { type AuditEntry, recordAudit } from "./operator-audit.ts";
export { settleInOrder } from "./settle-in-order.ts";
export { isConnectionError, SqlState, sqlState } from "./sql-state.ts";
export { unnestColumns } from "./unnest-columns.ts";
