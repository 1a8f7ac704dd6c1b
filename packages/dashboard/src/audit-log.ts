import { type Queryable, recordAudit } from "@mp/db";

/** The audit log's actor for a dashboard user. */
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
