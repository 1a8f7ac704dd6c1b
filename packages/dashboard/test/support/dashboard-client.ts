import type { Server } from "node:http";
import type { Database } from "@mp/db";
import type { Express } from "express";
import { createUser } from "../../src/index.ts";

/** A browser's view of the dashboard's JSON routes, for the API tests. */

export const PASSWORD = "correct horse battery staple";

export interface Answer {
  status: number;
  // biome-ignore lint/suspicious/noExplicitAny: answers of several shapes, read field by field
  body: any;
  headers: Headers;
  /** The answer as sent (a CSV download's content). */
  text: string;
}

/** A browser's view: one cookie jar and the session's CSRF token. */
export class Client {
  cookie: string | undefined;
  csrf: string | undefined;
  constructor(private readonly url: string) {}

  async call(
    method: string,
    path: string,
    options: { json?: unknown; text?: string; csrf?: string | null; origin?: string } = {},
  ) {
    const headers: Record<string, string> = {};
    if (this.cookie) headers.cookie = this.cookie;
    const csrf = options.csrf === undefined ? this.csrf : options.csrf;
    if (csrf) headers["x-csrf-token"] = csrf;
    if (options.origin) headers.origin = options.origin;
    if (options.json !== undefined) headers["content-type"] = "application/json";
    if (options.text !== undefined) headers["content-type"] = "text/plain";
    const body = options.json !== undefined ? JSON.stringify(options.json) : options.text;
    const res = await fetch(`${this.url}/dashboard/api${path}`, {
      method,
      headers,
      ...(body !== undefined ? { body } : {}),
    });
    const setCookie = res.headers.get("set-cookie");
    if (setCookie) {
      const value = /^mp_dashboard_session=([^;]*)/.exec(setCookie)?.[1];
      this.cookie = value ? `mp_dashboard_session=${value}` : undefined;
    }
    const text = await res.text();
    const json = text && res.headers.get("content-type")?.includes("json");
    return { status: res.status, body: json ? JSON.parse(text) : undefined, headers: res.headers, text } as Answer;
  }

  async signIn(email: string, password = PASSWORD): Promise<Answer> {
    const answer = await this.call("POST", "/session", { json: { email, password } });
    if (answer.status === 201) this.csrf = answer.body.csrf_token;
    return answer;
  }
}

/** Listens on a free local port; the base URL and a stop. */
export async function listen(app: Express): Promise<{ url: string; server: Server; close: () => Promise<void> }> {
  const server = await new Promise<Server>((resolve) => {
    const s = app.listen(0, "127.0.0.1", () => resolve(s));
  });
  const address = server.address();
  const url = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`;
  return { url, server, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

/** The admin (admin@example.com) and one user of each merchant role (ROLE@a.example) of `merchantId`. */
export async function createRoleUsers(db: Database, merchantId: string): Promise<void> {
  const users = [
    ["admin@example.com", "admin", undefined],
    ["owner@a.example", "owner", merchantId],
    ["finance@a.example", "finance", merchantId],
    ["viewer@a.example", "viewer", merchantId],
    ["developer@a.example", "developer", merchantId],
  ] as const;
  for (const [email, role, merchant] of users) {
    await createUser(db, { email, role, merchantId: merchant, password: PASSWORD, actor: "test" });
  }
}
