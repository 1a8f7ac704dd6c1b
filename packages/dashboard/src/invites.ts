import { hash, randomBytes, randomUUID } from "node:crypto";
import { ConflictError, ValidationError } from "@mp/core";
import type { Database, Queryable } from "@mp/db";
import { recordAudit } from "@mp/db";
import type { INVITABLE_ROLES } from "./roles.ts";
import { normaliseEmail } from "./user-store.ts";

type InvitableRole = (typeof INVITABLE_ROLES)[number];

/** An invite's link works once, within this many hours (as a password link). */
export const INVITE_HOURS = 24;

function hashToken(token: string): Buffer {
  return hash("sha256", token, "buffer");
}

export interface Invite {
  /** The invite's id, which becomes the user's when the link is used. */
  id: string;
  email: string;
  role: InvitableRole;
  /** The one-time link's token (never stored). */
  token: string;
}

/**
 * An owner invites an email to their merchant (migrations/0161): the same answer whether the email is
 * new or belongs to a user of another tenant (or the operator), so an invite never tells who has an
 * account elsewhere; only an email that already is one of this merchant's users is a clear 409. A
 * newer invite of the same email replaces an open one. No user exists until the link is used
 * (acceptInvite). The caller's role check and merchant scope come first (visibleMerchant).
 */
export async function createInvite(
  db: Database,
  input: { merchantId: string; email: string; role: InvitableRole; actor: string },
): Promise<Invite> {
  const email = normaliseEmail(input.email);
  if (!/^[^\s@]+@[^\s@]+$/.test(email)) throw new ValidationError("email: not an email address", "email");
  const id = randomUUID();
  const token = randomBytes(32).toString("base64url");
  await db.tx(async (sql) => {
    const own = await sql.query("SELECT 1 FROM dashboard_users WHERE email = $1 AND merchant_id = $2", [
      email,
      input.merchantId,
    ]);
    if ((own.rowCount ?? 0) > 0) throw new ConflictError(`${email} is already a user of this merchant`);
    await sql.query(
      "UPDATE dashboard_invites SET ended_at = now() WHERE merchant_id = $1 AND email = $2 AND ended_at IS NULL",
      [input.merchantId, email],
    );
    await sql.query(
      `INSERT INTO dashboard_invites (id, merchant_id, email, role, token_hash, invited_by, expires_at)
       VALUES ($1, $2, $3, $4, $5, $6, now() + make_interval(hours => $7))`,
      [id, input.merchantId, email, input.role, hashToken(token), input.actor, INVITE_HOURS],
    );
    await recordAudit(sql, {
      actor: input.actor,
      action: "dashboard_invite.created",
      objectType: "dashboard_invite",
      objectId: id,
      details: { email, role: input.role, merchant_id: input.merchantId },
    });
  });
  return { id, email, role: input.role, token };
}

/** The merchant's invites still open (unused, unexpired), as the team page lists them: no password yet. */
export async function listOpenInvites(
  sql: Queryable,
  merchantId: string,
): Promise<Array<{ id: string; email: string; role: InvitableRole; has_password: false; created_at: string }>> {
  const { rows } = await sql.query<{ id: string; email: string; role: InvitableRole; created_at: Date }>(
    `SELECT id, email, role, created_at FROM dashboard_invites
      WHERE merchant_id = $1 AND ended_at IS NULL AND expires_at > now() ORDER BY created_at, email`,
    [merchantId],
  );
  return rows.map((row) => ({ ...row, has_password: false, created_at: new Date(row.created_at).toISOString() }));
}

/**
 * Uses an invite's link, in the caller's transaction (usePasswordLink): the invite ends and the user is
 * created with its role, merchant and this password, recorded as created by the inviter. Undefined
 * when the token names no open invite, or when its email got an account meanwhile (in any tenant): the
 * caller answers as for an invalid link, so using a link tells no more than the invite did.
 */
export async function acceptInvite(
  sql: Queryable,
  token: string,
  passwordHash: string,
): Promise<{ id: string; email: string } | undefined> {
  const ended = await sql.query<{
    id: string;
    merchant_id: string;
    email: string;
    role: InvitableRole;
    invited_by: string;
  }>(
    `UPDATE dashboard_invites SET ended_at = now()
      WHERE token_hash = $1 AND ended_at IS NULL AND expires_at > now()
      RETURNING id, merchant_id, email, role, invited_by`,
    [hashToken(token)],
  );
  const invite = ended.rows[0];
  if (!invite) return undefined;
  const created = await sql.query(
    `INSERT INTO dashboard_users (id, email, role, merchant_id, password_hash) VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT (email) DO NOTHING`,
    [invite.id, invite.email, invite.role, invite.merchant_id, passwordHash],
  );
  if ((created.rowCount ?? 0) === 0) return undefined;
  await recordAudit(sql, {
    actor: invite.invited_by,
    action: "dashboard_user.created",
    objectType: "dashboard_user",
    objectId: invite.id,
    details: { email: invite.email, role: invite.role, merchant_id: invite.merchant_id, invite: true },
  });
  return { id: invite.id, email: invite.email };
}
