import { timingSafeEqual } from "node:crypto";
import { ForbiddenError, UnauthorizedError } from "@mp/core";
import type { Database } from "@mp/db";
import type { NextFunction, Request, RequestHandler, Response } from "express";
import { can, type DashboardUser, type Permission } from "./roles.ts";
import { readSessionCookie } from "./session-cookie.ts";
import { findSession, type Session } from "./session-store.ts";

export const CSRF_HEADER = "x-csrf-token";
const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

function sameToken(sent: string, expected: string): boolean {
  const a = Buffer.from(sent);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * Resolves the session cookie (401 without a live session) and, on every write, demands the
 * session's CSRF token in X-CSRF-Token (403 otherwise). Another site's page can make the browser
 * send a request, and in old browsers or from a sibling subdomain the cookie with it, but it cannot
 * read the token, which only the dashboard's own script gets (GET /dashboard/api/session).
 */
export function requireSession(db: Database): RequestHandler {
  return async (req: Request, res: Response, next: NextFunction) => {
    const token = readSessionCookie(req);
    const session = token ? await findSession(db, token) : undefined;
    if (!token || !session) throw new UnauthorizedError("Sign in to the dashboard");
    if (!SAFE_METHODS.has(req.method)) {
      const sent = req.get(CSRF_HEADER);
      if (!sent || !sameToken(sent, session.csrfToken)) throw new ForbiddenError("Missing or invalid CSRF token");
    }
    res.locals.dashboardSession = session;
    res.locals.dashboardToken = token;
    next();
  };
}

/** The session requireSession admitted. */
export function sessionOf(res: Response): Session {
  const session = res.locals.dashboardSession as Session | undefined;
  if (!session) throw new UnauthorizedError("Sign in to the dashboard");
  return session;
}

export function sessionTokenOf(res: Response): string {
  return res.locals.dashboardToken as string;
}

/** The signed-in user, if their role grants `permission` (403 otherwise). */
export function userWith(res: Response, permission: Permission): DashboardUser {
  const { user } = sessionOf(res);
  if (!can(user.role, permission)) throw new ForbiddenError(`The ${user.role} role cannot do this`);
  return user;
}

/**
 * Writes made without a session (sign-in, setting a password) cannot carry a session's token: they
 * are refused when the browser says they come from another origin. (Their effect is limited too: a
 * forged sign-in needs the password, a forged password change needs the one-time token.)
 */
export const sameOriginOnly: RequestHandler = (req, _res, next) => {
  const origin = req.get("origin");
  if (origin !== undefined && origin !== "null") {
    let host: string | undefined;
    try {
      host = new URL(origin).host;
    } catch {
      host = undefined;
    }
    if (host !== req.get("host")) throw new ForbiddenError("Cross-origin request refused");
  } else if (origin === "null") {
    throw new ForbiddenError("Cross-origin request refused");
  }
  next();
};
