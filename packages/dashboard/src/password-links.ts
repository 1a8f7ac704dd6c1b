import { hash, randomBytes } from "node:crypto";
import { ValidationError } from "@mp/core";
import type { Database, Queryable } from "@mp/db";
import { recordAccountAudit } from "./audit-log.ts";
import { acceptInvite } from "./invites.ts";
import { hashPassword } from "./password-hash.ts";
import { PASSWORD_LINK_HOURS } from "./password-link-hours.ts";
import { checkPasswordPolicy, storePasswordHash } from "./user-store.ts";

export { PASSWORD_LINK_HOURS };

function hashToken(token: string): Buffer {
  return hash("sha256", token, "buffer");
}

/** A new one-time token for the user; earlier unused links of theirs stop working. */
export async function createPasswordLink(sql: Queryable, userId: string): Promise<string> {
  const token = randomBytes(32).toString("base64url");
  await sql.query("UPDATE dashboard_password_links SET used_at = now() WHERE user_id = $1 AND used_at IS NULL", [
    userId,
  ]);
  await sql.query(
    `INSERT INTO dashboard_password_links (token_hash, user_id, expires_at)
     VALUES ($1, $2, now() + make_interval(hours => $3))`,
    [hashToken(token), userId, PASSWORD_LINK_HOURS],
  );
  return token;
}

/** The page the link opens; the token rides in the fragment, so it never reaches a server log or a Referer. */
export function passwordLinkUrl(baseUrl: string, token: string): string {
  return `${baseUrl.replace(/\/+$/, "")}/dashboard/set-password#token=${token}`;
}

/**
 * Uses the link: in one transaction the token is marked used (only if unused and unexpired) and the
 * password set, so two tabs racing with one link set at most one password. The token may be an
 * invite's instead (invites.ts): the user is then created with this password. A token that does
 * neither (unknown, used, expired, or an invite whose email has an account by now) is refused alike.
 */
export async function usePasswordLink(db: Database, token: string, password: string): Promise<void> {
  checkPasswordPolicy(password);
  const passwordHash = await hashPassword(password);
  const invalid = () => new ValidationError("token: this link is invalid, used or expired; ask for a new one", "token");
  await db.tx(async (client) => {
    const used = await client.query<{ user_id: string; email: string }>(
      `UPDATE dashboard_password_links l SET used_at = now()
         FROM dashboard_users u
        WHERE l.token_hash = $1 AND l.used_at IS NULL AND l.expires_at > now() AND u.id = l.user_id
          AND u.disabled_at IS NULL
        RETURNING l.user_id, u.email`,
      [hashToken(token)],
    );
    const row = used.rows[0];
    if (!row) {
      const invited = await acceptInvite(client, token, passwordHash);
      if (!invited) throw invalid();
      await recordAccountAudit(client, invited, "dashboard_user.password_set");
      return;
    }
    await storePasswordHash(client, row.user_id, passwordHash);
    await recordAccountAudit(client, { id: row.user_id, email: row.email }, "dashboard_user.password_set");
  });
}
