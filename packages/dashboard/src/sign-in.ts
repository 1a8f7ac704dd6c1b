import { AppError, ForbiddenError, UnauthorizedError } from "@mp/core";
import type { Database } from "@mp/db";
import { recordAccountAudit } from "./audit-log.ts";
import { UNKNOWN_USER_HASH, verifyPassword } from "./password-hash.ts";
import type { DashboardUser } from "./roles.ts";
import { createSession } from "./session-store.ts";
import { findUserByEmail } from "./user-store.ts";

/**
 * The lockout: the 10th consecutive failed sign-in of an account locks it for 15 minutes, during
 * which even the right password is refused. A success resets the count; so does setting a password
 * (a new one-time link from `payments users reset-password`). After the lock ends the count stays:
 * the next failure locks again at once, so a guesser gets one try per 15 minutes.
 */
export const MAX_FAILED_SIGN_INS = 10;
export const LOCKOUT_MINUTES = 15;

const INVALID = "Invalid email or password";

export interface SignedIn {
  user: DashboardUser;
  /** The session cookie's value. */
  token: string;
  csrfToken: string;
}

export async function signIn(db: Database, email: string, password: string): Promise<SignedIn> {
  const user = await findUserByEmail(db, email);
  if (!user || user.disabled) {
    // As long as a wrong password takes, so the answer's time does not tell which emails exist.
    await verifyPassword(password, UNKNOWN_USER_HASH);
    throw new UnauthorizedError(INVALID);
  }
  if (user.locked) {
    throw new AppError(
      "rate_limited",
      `This account is locked after ${MAX_FAILED_SIGN_INS} failed sign-ins; try again in ${LOCKOUT_MINUTES} minutes`,
    );
  }
  const valid = user.passwordHash !== null && (await verifyPassword(password, user.passwordHash));
  if (!valid) {
    await db.tx(async (client) => {
      // Counted in SQL, so concurrent failures all count.
      const failed = await client.query<{ locked: boolean }>(
        `UPDATE dashboard_users SET failed_attempts = failed_attempts + 1,
                locked_until = CASE WHEN failed_attempts + 1 >= $2
                                    THEN now() + make_interval(mins => $3) ELSE locked_until END
          WHERE id = $1
          RETURNING failed_attempts >= $2 AS locked`,
        [user.id, MAX_FAILED_SIGN_INS, LOCKOUT_MINUTES],
      );
      if (failed.rows[0]?.locked) {
        await recordAccountAudit(client, user, "dashboard_user.locked", { minutes: LOCKOUT_MINUTES });
      }
    });
    throw new UnauthorizedError(INVALID);
  }
  // Said only to who knows the password: the merchant's dashboard is closed, not the account wrong.
  if (user.merchantDisabled) {
    throw new ForbiddenError("This merchant is disabled: its dashboard opens again when the operator enables it");
  }
  return db.tx(async (client) => {
    await client.query("UPDATE dashboard_users SET failed_attempts = 0, locked_until = NULL WHERE id = $1", [user.id]);
    const session = await createSession(client, user.id);
    await recordAccountAudit(client, user, "dashboard_session.signed_in");
    const { id, email: address, role, merchantId } = user;
    return { user: { id, email: address, role, merchantId }, ...session };
  });
}
