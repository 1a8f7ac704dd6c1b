import type { Queryable } from "@mp/db";

/**
 * Appends one row to `operator_audit_log` (migration 0061, append-only), the platform's one audit
 * log: the actor is `dashboard:<email>` for a dashboard user, or the operator's name from the CLI.
 * Called in the transaction of the change where there is one, so the change and its record commit together.
 */
export async function recordAudit(
  sql: Queryable,
  entry: { actor: string; action: string; objectType: string; objectId: string; details?: Record<string, unknown> },
): Promise<void> {
  await sql.query(
    `INSERT INTO operator_audit_log (actor, action, object_type, object_id, details)
     VALUES ($1, $2, $3, $4, $5::jsonb)`,
    [entry.actor, entry.action, entry.objectType, entry.objectId, JSON.stringify(entry.details ?? {})],
  );
}

export function dashboardActor(email: string): string {
  return `dashboard:${email}`;
}

/** An action of a dashboard user on their own account (sign-in, sign-out, lockout, new password). */
export function recordAccountAudit(
  sql: Queryable,
  user: { id: string; email: string },
  action: string,
  details?: Record<string, unknown>,
): Promise<void> {
  return recordAudit(sql, {
    actor: dashboardActor(user.email),
    action,
    objectType: "dashboard_user",
    objectId: user.id,
    ...(details ? { details } : {}),
  });
}
