import { hash, randomBytes } from "node:crypto";
import type { Queryable } from "@mp/db";
import type { DashboardUser, Role } from "./roles.ts";

/** A session lasts this long from sign-in, however active: then the person signs in again. */
export const SESSION_HOURS = 12;

export interface Session {
  user: DashboardUser;
  csrfToken: string;
  expiresAt: Date;
}

/** The cookie value carries 256 random bits, so a fast hash of it is enough to store. */
function hashToken(token: string): Buffer {
  return hash("sha256", token, "buffer");
}

/** A new session for this user: the cookie's token (never stored) and the session's CSRF token. */
export async function createSession(sql: Queryable, userId: string): Promise<{ token: string; csrfToken: string }> {
  const token = randomBytes(32).toString("base64url");
  const csrfToken = randomBytes(32).toString("base64url");
  await sql.query(
    `INSERT INTO dashboard_sessions (token_hash, user_id, csrf_token, expires_at)
     VALUES ($1, $2, $3, now() + make_interval(hours => $4))`,
    [hashToken(token), userId, csrfToken, SESSION_HOURS],
  );
  return { token, csrfToken };
}

/**
 * The live session of this cookie token: unexpired, its user not disabled, and the user's merchant
 * not disabled (an operator's disable closes the merchant's dashboard as it closes its API keys;
 * enabling it again brings back the sessions still unexpired).
 */
export async function findSession(sql: Queryable, token: string): Promise<Session | undefined> {
  const result = await sql.query<{
    id: string;
    email: string;
    role: Role;
    merchant_id: string | null;
    csrf_token: string;
    expires_at: Date;
  }>(
    `SELECT u.id, u.email, u.role, u.merchant_id, s.csrf_token, s.expires_at
       FROM dashboard_sessions s JOIN dashboard_users u ON u.id = s.user_id
       LEFT JOIN merchants m ON m.id = u.merchant_id
      WHERE s.token_hash = $1 AND s.expires_at > now() AND u.disabled_at IS NULL AND m.disabled_at IS NULL`,
    [hashToken(token)],
  );
  const row = result.rows[0];
  if (!row) return undefined;
  return {
    user: { id: row.id, email: row.email, role: row.role, merchantId: row.merchant_id ?? undefined },
    csrfToken: row.csrf_token,
    expiresAt: row.expires_at,
  };
}

export async function deleteSession(sql: Queryable, token: string): Promise<void> {
  await sql.query("DELETE FROM dashboard_sessions WHERE token_hash = $1", [hashToken(token)]);
}

/** Sign-out everywhere: every session of the user, this one included. Returns how many ended. */
export async function deleteUserSessions(sql: Queryable, userId: string): Promise<number> {
  const result = await sql.query("DELETE FROM dashboard_sessions WHERE user_id = $1", [userId]);
  // Expired rows of every user go too: nothing else reads them.
  await sql.query("DELETE FROM dashboard_sessions WHERE expires_at <= now()");
  return result.rowCount ?? 0;
}
