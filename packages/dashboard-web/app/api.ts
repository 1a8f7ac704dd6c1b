/** The dashboard's JSON routes (/dashboard/api), with the session's CSRF token on every write. */

import type {
  ApiKeyAnswer,
  CreatedKeyAnswer,
  DepositResource,
  MerchantAnswer,
  MerchantBalance,
  OverviewAnswer,
  Role,
  SessionAnswer,
  UserAnswer,
} from "./answers.ts";

export type { Role };
export type Environment = MerchantAnswer["environment"];
export type User = UserAnswer;
export type Merchant = MerchantAnswer;
export type ApiKey = ApiKeyAnswer;
export type Balance = MerchantBalance;
export type Deposit = DepositResource;
export type Overview = OverviewAnswer;
export type CreatedKey = CreatedKeyAnswer;

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
let sessionEnded: (() => void) | undefined;

export function setCsrfToken(token: string | undefined): void {
  csrfToken = token;
}

/**
 * What to do when the server says the session is over (a 401 to a signed-in page: expired, signed
 * out elsewhere, the user disabled): the app goes back to the sign-in page at once, whatever page
 * asked, instead of each page showing "Try again" or polling a 401 forever.
 */
export function onSessionEnded(handler: (() => void) | undefined): void {
  sessionEnded = handler;
}

/** The request, answered 2xx, or an ApiError with the server's code and message. */
async function send(
  method: string,
  path: string,
  body?: unknown,
  contentType?: string,
  extraHeaders: Record<string, string> = {},
): Promise<Response> {
  const headers: Record<string, string> = { ...extraHeaders, accept: "application/json" };
  if (body !== undefined) headers["content-type"] = contentType ?? "application/json";
  if (method !== "GET" && csrfToken) headers["x-csrf-token"] = csrfToken;
  let response: Response;
  try {
    response = await fetch(path, {
      method,
      headers,
      credentials: "same-origin",
      ...(body !== undefined ? { body: contentType ? String(body) : JSON.stringify(body) } : {}),
    });
  } catch {
    throw new ApiError(0, "network_error", "The service cannot be reached. Check your connection and try again.");
  }
  if (response.ok) return response;
  const text = await response.text();
  const { code, message } = errorOf(text ? safeJson(text) : undefined);
  // Only a signed-in app's 401 ends its session: a wrong password at sign-in is a 401 too.
  if (response.status === 401 && csrfToken !== undefined) sessionEnded?.();
  throw new ApiError(
    response.status,
    code ?? `http_${response.status}`,
    message ?? `Request failed (${response.status})`,
  );
}

export async function call<T>(method: string, path: string, body?: unknown, contentType?: string): Promise<T> {
  const text = await (await send(method, `/dashboard/api${path}`, body, contentType)).text();
  return (text ? safeJson(text) : undefined) as T;
}

/**
 * A create the page may send again (a payout after a network error): the same `idempotencyKey`
 * makes the server run it at most once and answer a retry with the first answer.
 */
export async function callOnce<T>(method: string, path: string, body: unknown, idempotencyKey: string): Promise<T> {
  const response = await send(method, `/dashboard/api${path}`, body, undefined, {
    "x-idempotency-key": idempotencyKey,
  });
  const text = await response.text();
  return (text ? safeJson(text) : undefined) as T;
}

/**
 * Downloads the file at `path` (a GET under /dashboard/api) into the browser's downloads, named as
 * the server's Content-Disposition says. Fetched, not navigated to: a refusal (a viewer, an ended
 * session, another merchant's id) throws its ApiError for the page to show, and the app stays.
 */
export async function download(path: string, fallbackName: string): Promise<void> {
  const response = await send("GET", `/dashboard/api${path}`);
  const name = /filename="([^"]+)"/.exec(response.headers.get("content-disposition") ?? "")?.[1] ?? fallbackName;
  const url = URL.createObjectURL(await response.blob());
  const link = document.createElement("a");
  link.href = url;
  link.download = name;
  document.body.append(link);
  link.click();
  link.remove();
  // The click has handed the blob to the download; a moment later it can go.
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
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
