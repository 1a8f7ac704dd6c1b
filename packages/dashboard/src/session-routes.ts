import { parseOrThrow, perClientRateLimit } from "@mp/api";
import type { Database } from "@mp/db";
import { type RequestHandler, Router } from "express";
import { z } from "zod";
import { recordAccountAudit } from "./audit-log.ts";
import { PASSWORD_MAX_LENGTH } from "./password-hash.ts";
import { usePasswordLink } from "./password-links.ts";
import { requireSession, sameOriginOnly, sessionOf, sessionTokenOf } from "./require-session.ts";
import type { DashboardUser } from "./roles.ts";
import { clearSessionCookie, setSessionCookie } from "./session-cookie.ts";
import { deleteSession, deleteUserSessions } from "./session-store.ts";
import { signIn } from "./sign-in.ts";

const SignInBody = z.strictObject({
  email: z.string().min(1).max(320),
  password: z.string().min(1).max(PASSWORD_MAX_LENGTH),
});
const SetPasswordBody = z.strictObject({
  token: z.string().min(1).max(200),
  password: z.string().max(PASSWORD_MAX_LENGTH),
});

export function userView(user: DashboardUser) {
  return { id: user.id, email: user.email, role: user.role, merchant_id: user.merchantId ?? null };
}

/** A signed-in session as the front end reads it: who, and the token its writes send. */
export function sessionView(user: DashboardUser, csrfToken: string) {
  return { user: userView(user), csrf_token: csrfToken };
}

/**
 * Sign-in, the current session, sign-out (this session or everywhere) and setting a password from
 * a one-time link. `signInsPerMinute`: per client address and process, before any password is
 * checked; the per-account lockout (sign-in.ts) stops guessing spread over many addresses.
 */
export function sessionRoutes(db: Database, json: RequestHandler, signInsPerMinute: number): Router {
  const router = Router();
  const signInLimit = perClientRateLimit(signInsPerMinute);
  const session = requireSession(db);

  router.post("/session", sameOriginOnly, json, async (req, res) => {
    signInLimit(req.ip ?? req.socket.remoteAddress ?? "", res);
    const body = parseOrThrow(SignInBody, req.body, "body");
    const signedIn = await signIn(db, body.email, body.password);
    setSessionCookie(req, res, signedIn.token);
    res.status(201).json(sessionView(signedIn.user, signedIn.csrfToken));
  });

  router.get("/session", session, (_req, res) => {
    const current = sessionOf(res);
    res.json({ ...sessionView(current.user, current.csrfToken), expires_at: current.expiresAt });
  });

  router.delete("/session", session, async (req, res) => {
    const { user } = sessionOf(res);
    await db.tx(async (client) => {
      await deleteSession(client, sessionTokenOf(res));
      await recordAccountAudit(client, user, "dashboard_session.signed_out");
    });
    clearSessionCookie(req, res);
    res.status(204).end();
  });

  router.post("/session/sign-out-everywhere", session, async (req, res) => {
    const { user } = sessionOf(res);
    const ended = await db.tx(async (client) => {
      const count = await deleteUserSessions(client, user.id);
      await recordAccountAudit(client, user, "dashboard_session.signed_out_everywhere", { sessions: count });
      return count;
    });
    clearSessionCookie(req, res);
    res.json({ sessions_ended: ended });
  });

  router.post("/password", sameOriginOnly, json, async (req, res) => {
    signInLimit(req.ip ?? req.socket.remoteAddress ?? "", res);
    const body = parseOrThrow(SetPasswordBody, req.body, "body");
    await usePasswordLink(db, body.token, body.password);
    res.status(204).end();
  });

  return router;
}
