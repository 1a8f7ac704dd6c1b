import type { Server } from "node:http";
import { keepIdleConnections } from "@mp/api";
import type { Database } from "@mp/db";
import express, { type Express, type Router } from "express";
import {
  type ApiHarness,
  type HarnessOptions,
  startApiHarness,
  type TestMerchant,
} from "../../../../test/support/api-harness.ts";
import { createDashboardRouter, createUser, type Role } from "../../src/index.ts";

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
    options: {
      json?: unknown;
      text?: string;
      csrf?: string | null;
      origin?: string;
      headers?: Record<string, string>;
    } = {},
  ) {
    const headers: Record<string, string> = { ...options.headers };
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

/** Listens on a free local port (idle connections kept, as the app's server keeps them); the base URL and a stop. */
export async function listen(app: Express): Promise<{ url: string; server: Server; close: () => Promise<void> }> {
  const server = await new Promise<Server>((resolve) => {
    const s = keepIdleConnections(app.listen(0, "127.0.0.1", () => resolve(s)));
  });
  const address = server.address();
  const url = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`;
  return { url, server, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

/** The dashboard served on a free local port: its origin, and browsers of it. */
export class DashboardSite {
  constructor(
    readonly url: string,
    /** Stops the server (not what its router's dependencies belong to). */
    readonly close: () => Promise<void>,
  ) {}

  /** A browser signed in as `email` (with PASSWORD). */
  signedIn(email: string): Promise<Client> {
    return signedIn(this.url, email);
  }

  /** A browser that has not signed in. */
  client(): Client {
    return new Client(this.url);
  }
}

/** Serves `router` under /dashboard, as the app mounts it, on a free local port. */
export async function listenDashboard(router: Router): Promise<DashboardSite> {
  const app = express();
  app.use("/dashboard", router);
  const served = await listen(app);
  return new DashboardSite(served.url, served.close);
}

/** The dashboard router on `api`'s dependencies, its /v1 routes too, sign-ins not rate limited. */
export function dashboardRouterOf(api: ApiHarness): Router {
  return createDashboardRouter({ ...api.deps, appDeps: api.deps, signInsPerMinute: 1000 });
}

/** The API harness and its dashboard router (sign-ins not rate limited) on a free local port. */
export interface ServedDashboard {
  api: ApiHarness;
  url: string;
  /** Stops the server, then the harness. */
  close(): Promise<void>;
}

/** Starts the harness with `options` and serves the dashboard router on its dependencies. */
export async function serveDashboard(options: HarnessOptions = {}): Promise<ServedDashboard> {
  const api = await startApiHarness(options);
  try {
    const site = await listenDashboard(dashboardRouterOf(api));
    return {
      api,
      url: site.url,
      async close() {
        await site.close();
        await api.stop();
      },
    };
  } catch (error) {
    await api.stop();
    throw error;
  }
}

/** A browser signed in as `email` (with PASSWORD) on the dashboard at `url`. */
export async function signedIn(url: string, email: string): Promise<Client> {
  const client = new Client(url);
  const answer = await client.signIn(email);
  if (answer.status !== 201) throw new Error(`${email} could not sign in: ${answer.status} ${answer.text}`);
  return client;
}

/** Creates each user (email, role, merchant; none for the admin), all with PASSWORD. */
export async function createUsers(
  db: Database,
  users: ReadonlyArray<readonly [string, Role, string | undefined]>,
): Promise<void> {
  for (const [email, role, merchantId] of users) {
    await createUser(db, { email, role, merchantId, password: PASSWORD, actor: "test" });
  }
}

/**
 * A sandbox merchant with one dashboard user per role listed, ROLE@DOMAIN ("a.example" unless
 * given), and with `admin` the operator admin@example.com too; all with PASSWORD.
 */
export async function merchantWithRoleUsers(
  api: ApiHarness,
  roles: readonly Role[],
  options: { admin?: boolean | undefined; domain?: string } = {},
): Promise<TestMerchant> {
  const merchant = await api.merchant("sandbox");
  await createUsers(api.db, [
    ...(options.admin ? [["admin@example.com", "admin", undefined] as const] : []),
    ...roles.map((role) => [`${role}@${options.domain ?? "a.example"}`, role, merchant.merchantId] as const),
  ]);
  return merchant;
}

/**
 * Merchants A and B (sandbox), with one dashboard user per role listed for each: ROLE@a.example of A,
 * ROLE@b.example of B (password PASSWORD), and the admin when asked (see merchantWithRoleUsers). The
 * tests' usual cast: A's users, and B's owner to be refused A.
 */
export async function merchantsWithRoleUsers(
  api: ApiHarness,
  roles: { a: readonly Role[]; b?: readonly Role[]; admin?: boolean },
): Promise<{ a: TestMerchant; b: TestMerchant }> {
  const a = await merchantWithRoleUsers(api, roles.a, { admin: roles.admin });
  const b = await merchantWithRoleUsers(api, roles.b ?? [], { domain: "b.example" });
  return { a, b };
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
  await createUsers(db, users);
}
