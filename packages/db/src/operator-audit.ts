import type { Queryable } from "./database-contract.ts";

/** One line of the platform's audit log: who did what to which object, with what it needs to be read later. */
export interface AuditEntry {
  actor: string;
  action: string;
  objectType: string;
  objectId: string;
  details?: Record<string, unknown>;
}

/**
 * Appends one row to `operator_audit_log` (migration 0061, append-only), the platform's one audit
 * log: the actor is `dashboard:<email>` for a dashboard user, the operator's name from the CLI, or
 * the process that acted (`sanctions-screening`). It lives this low so that every package that
 * changes something an operator answers for writes the same row the same way. Called in the
 * transaction of the change where there is one, so the change and its record commit together.
 */
export async function recordAudit(sql: Queryable, entry: AuditEntry): Promise<void> {
  await sql.query(
    `INSERT INTO operator_audit_log (actor, action, object_type, object_id, details)
     VALUES ($1, $2, $3, $4, $5::jsonb)`,
    [entry.actor, entry.action, entry.objectType, entry.objectId, JSON.stringify(entry.details ?? {})],
  );
}
