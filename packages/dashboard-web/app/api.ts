/** The dashboard's JSON routes (/dashboard/api), with the session's CSRF token on every write. */

export type Role = "admin" | "owner" | "developer" | "finance" | "viewer";
export type Environment = "sandbox" | "production";

export interface User {
  id: string;
  email: string;
  role: Role;
  merchant_id: string | null;
}

export interface Merchant {
  id: string;
  name: string;
  environment: Environment;
  created_at: string;
}

export interface ApiKey {
  id: string;
  prefix: string;
  environment: Environment;
  created_at: string;
  revoked_at: string | null;
}

export interface Balance {
  currency: "USD";
  available: string;
  reserved: string;
  held: string;
  pending: string;
}

export interface Deposit {
  id: string;
  chain: string;
  asset: string;
  amount: string;
  amount_usd: string | null;
  status: string;
  confirmations: number;
  required_confirmations: number;
  created_at: string;
}

export interface Overview {
  balance: Balance;
  recent_deposits: Deposit[];
  total_deposits: number;
}

export interface CreatedKey {
  id: string;
  prefix: string;
  environment: Environment;
  api_key: string;
}

/** An answer other than 2xx, with the server's code and message (both error forms of the API). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

let csrfToken: string | undefined;

export function setCsrfToken(token: string | undefined): void {
  csrfToken = token;
}

export async function call<T>(method: string, path: string, body?: unknown, contentType?: string): Promise<T> {
  const headers: Record<string, string> = { accept: "application/json" };
  if (body !== undefined) headers["content-type"] = contentType ?? "application/json";
  if (method !== "GET" && csrfToken) headers["x-csrf-token"] = csrfToken;
  let response: Response;
  try {
    response = await fetch(`/dashboard/api${path}`, {
      method,
      headers,
      credentials: "same-origin",
      ...(body !== undefined ? { body: contentType ? String(body) : JSON.stringify(body) } : {}),
    });
  } catch {
    throw new ApiError(0, "network_error", "The service cannot be reached. Check your connection and try again.");
  }
  const text = await response.text();
  const parsed: unknown = text ? safeJson(text) : undefined;
  if (!response.ok) {
    const { code, message } = errorOf(parsed);
    throw new ApiError(
      response.status,
      code ?? `http_${response.status}`,
      message ?? `Request failed (${response.status})`,
    );
  }
  return parsed as T;
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** `{ error: "code", message }` (envelope form) or `{ error: { code, message } }` (nested form). */
function errorOf(body: unknown): { code?: string; message?: string } {
  if (typeof body !== "object" || body === null) return {};
  const { error, message } = body as { error?: unknown; message?: unknown };
  if (typeof error === "object" && error !== null) {
    const nested = error as { code?: unknown; message?: unknown };
    return {
      ...(typeof nested.code === "string" ? { code: nested.code } : {}),
      ...(typeof nested.message === "string" ? { message: nested.message } : {}),
    };
  }
  return {
    ...(typeof error === "string" ? { code: error } : {}),
    ...(typeof message === "string" ? { message } : {}),
  };
}

interface SessionAnswer {
  user: User;
  csrf_token: string;
}

export const api = {
  session: () => call<SessionAnswer>("GET", "/session"),
  signIn: (email: string, password: string) => call<SessionAnswer>("POST", "/session", { email, password }),
  signOut: () => call<undefined>("DELETE", "/session"),
  signOutEverywhere: () => call<{ sessions_ended: number }>("POST", "/session/sign-out-everywhere"),
  setPassword: (token: string, password: string) => call<undefined>("POST", "/password", { token, password }),
  merchants: () => call<{ items: Merchant[] }>("GET", "/merchants"),
  overview: (merchantId: string) => call<Overview>("GET", `/merchants/${encodeURIComponent(merchantId)}/overview`),
  apiKeys: (merchantId: string) =>
    call<{ items: ApiKey[] }>("GET", `/merchants/${encodeURIComponent(merchantId)}/api-keys`),
  createApiKey: (merchantId: string) =>
    call<CreatedKey>("POST", `/merchants/${encodeURIComponent(merchantId)}/api-keys`),
  revokeApiKey: (merchantId: string, keyId: string) =>
    call<ApiKey>("POST", `/merchants/${encodeURIComponent(merchantId)}/api-keys/${encodeURIComponent(keyId)}/revoke`),
};

/** What each role may do, as the server enforces it (the server refuses anyway: this only hides buttons). */
export function canWriteKeys(role: Role): boolean {
  return role === "admin" || role === "owner" || role === "developer";
}
