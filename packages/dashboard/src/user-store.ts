import { randomUUID } from "node:crypto";
import { ConflictError, NotFoundError, ValidationError } from "@mp/core";
import { type Database, type Queryable, recordAudit, SqlState, sqlState } from "@mp/db";
import { hashPassword, PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from "./password-hash.ts";
import type { DashboardUser, Role } from "./roles.ts";

/** A user row as sign-in needs it. */
export interface StoredUser extends DashboardUser {
  passwordHash: string | null;
  failedAttempts: number;
  /** True while a lockout runs (compared with the database's clock). */
  locked: boolean;
  disabled: boolean;
  /** The user's merchant is disabled by the operator: no session until it is enabled again. */
  merchantDisabled: boolean;
}

interface UserRow {
  id: string;
  email: string;
  role: Role;
  merchant_id: string | null;
  password_hash: string | null;
  failed_attempts: number;
  locked: boolean;
  disabled_at: Date | null;
  merchant_disabled: boolean;
}

const COLUMNS = `u.id, u.email, u.role, u.merchant_id, u.password_hash, u.failed_attempts,
  coalesce(u.locked_until > now(), false) AS locked, u.disabled_at, m.disabled_at IS NOT NULL AS merchant_disabled`;

function toUser(row: UserRow): StoredUser {
  return {
    id: row.id,
    email: row.email,
    role: row.role,
    merchantId: row.merchant_id ?? undefined,
    passwordHash: row.password_hash,
    failedAttempts: row.failed_attempts,
    locked: row.locked,
    disabled: row.disabled_at !== null,
    merchantDisabled: row.merchant_disabled,
  };
}

export function normaliseEmail(email: string): string {
  return email.trim().toLowerCase();
}

export function checkPasswordPolicy(password: string): void {
  if (password.length < PASSWORD_MIN_LENGTH || password.length > PASSWORD_MAX_LENGTH) {
    throw new ValidationError(
      `password: must be ${PASSWORD_MIN_LENGTH} to ${PASSWORD_MAX_LENGTH} characters long`,
      "password",
    );
  }
}

export async function findUserByEmail(sql: Queryable, email: string): Promise<StoredUser | undefined> {
  const result = await sql.query<UserRow>(
    `SELECT ${COLUMNS} FROM dashboard_users u LEFT JOIN merchants m ON m.id = u.merchant_id WHERE u.email = $1`,
    [normaliseEmail(email)],
  );
  const row = result.rows[0];
  return row ? toUser(row) : undefined;
}

export interface NewUser {
  email: string;
  role: Role;
  merchantId?: string | undefined;
  /** Set now (from a file the operator wrote), or later through a one-time link. */
  password?: string | undefined;
  /** Who creates it, for the audit log. */
  actor: string;
}

/** Creates a user; an admin has no merchant and every other role has exactly one. */
export async function createUser(db: Database, input: NewUser): Promise<DashboardUser> {
  const email = normaliseEmail(input.email);
  if (!/^[^\s@]+@[^\s@]+$/.test(email)) throw new ValidationError("email: not an email address", "email");
  if (input.role === "admin" && input.merchantId) {
    throw new ValidationError("merchant: an admin belongs to no merchant", "merchant");
  }
  if (input.role !== "admin" && !input.merchantId) {
    throw new ValidationError(`merchant: required for the ${input.role} role`, "merchant");
  }
  if (input.password !== undefined) checkPasswordPolicy(input.password);
  const passwordHash = input.password === undefined ? null : await hashPassword(input.password);
  const id = randomUUID();
  try {
    await db.tx(async (client) => {
      if (input.merchantId) {
        const merchant = await client.query("SELECT 1 FROM merchants WHERE id = $1", [input.merchantId]);
        if (merchant.rowCount === 0) throw new NotFoundError("Merchant");
      }
      await client.query(
        "INSERT INTO dashboard_users (id, email, role, merchant_id, password_hash) VALUES ($1, $2, $3, $4, $5)",
        [id, email, input.role, input.merchantId ?? null, passwordHash],
      );
      await recordAudit(client, {
        actor: input.actor,
        action: "dashboard_user.created",
        objectType: "dashboard_user",
        objectId: id,
        details: { email, role: input.role, merchant_id: input.merchantId ?? null },
      });
    });
  } catch (error) {
    if (sqlState(error) === SqlState.uniqueViolation) throw new ConflictError(`a dashboard user ${email} exists`);
    throw error;
  }
  return { id, email, role: input.role, merchantId: input.merchantId };
}

/**
 * Stores a new password's hash (from hashPassword, computed before any transaction: it takes a core
 * for about 0.1 s), unlocks the account and ends every session it had.
 */
export async function storePasswordHash(sql: Queryable, userId: string, passwordHash: string): Promise<void> {
  await sql.query(
    "UPDATE dashboard_users SET password_hash = $2, failed_attempts = 0, locked_until = NULL WHERE id = $1",
    [userId, passwordHash],
  );
  await sql.query("DELETE FROM dashboard_sessions WHERE user_id = $1", [userId]);
}

/** The users of one merchant (its team page), oldest first; never a password hash. */
export async function listMerchantUsers(
  sql: Queryable,
  merchantId: string,
): Promise<Array<{ id: string; email: string; role: Role; has_password: boolean; created_at: string }>> {
  const { rows } = await sql.query<{ id: string; email: string; role: Role; has_password: boolean; created_at: Date }>(
    `SELECT id, email, role, password_hash IS NOT NULL AS has_password, created_at FROM dashboard_users
      WHERE merchant_id = $1 AND disabled_at IS NULL ORDER BY created_at, email`,
    [merchantId],
  );
  return rows.map((row) => ({ ...row, created_at: new Date(row.created_at).toISOString() }));
}
