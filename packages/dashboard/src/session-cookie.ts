import type { Request, Response } from "express";
import { SESSION_HOURS } from "./session-store.ts";

const COOKIE = "mp_dashboard_session";
const LOCAL_HOSTS = new Set(["localhost", "127.0.0.1", "::1", "[::1]"]);

/** The session token of the request's cookie, if any. */
export function readSessionCookie(req: Request): string | undefined {
  const header = req.get("cookie");
  if (!header) return undefined;
  for (const part of header.split(";")) {
    const [name, ...value] = part.trim().split("=");
    if (name === COOKIE) return value.join("=") || undefined;
  }
  return undefined;
}

/**
 * httpOnly (no script reads it), SameSite=Strict (no other site's page sends it), scoped to
 * /dashboard (the API under /v1 never sees it) and Secure everywhere but on localhost, where a
 * developer's browser speaks plain HTTP.
 */
function attributes(req: Request, maxAgeSeconds: number): string {
  const secure = LOCAL_HOSTS.has(req.hostname) ? "" : "; Secure";
  return `Path=/dashboard; HttpOnly; SameSite=Strict; Max-Age=${maxAgeSeconds}${secure}`;
}

export function setSessionCookie(req: Request, res: Response, token: string): void {
  res.append("Set-Cookie", `${COOKIE}=${token}; ${attributes(req, SESSION_HOURS * 3600)}`);
}

export function clearSessionCookie(req: Request, res: Response): void {
  res.append("Set-Cookie", `${COOKIE}=; ${attributes(req, 0)}`);
}
