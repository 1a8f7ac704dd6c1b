import type { z } from "zod";
import { TronApiError } from "./tron-api-error.ts";

export interface TronHttpClientOptions {
  /** Base URL of the full node's HTTP API (e.g. http://127.0.0.1:8090 or https://api.trongrid.io). */
  url: string;
  fetch?: typeof globalThis.fetch | undefined;
  timeoutMs?: number | undefined;
  /** Sent as `TRON-PRO-API-KEY` (TronGrid). */
  apiKey?: string | undefined;
}

/**
 * int64 sun amounts (`amount`, an internal transaction's `callValue`) are bare JSON numbers; JSON.parse would round those above 2^53 (9 billion TRX,
 * within the supply). Quoting them first keeps every digit; the schemas accept both forms. A key
 * inside a JSON string would be escaped (`\"amount\"`), so no string content can match.
 */
const LONG_AMOUNT = /"(amount|callValue)":(\s*)(\d{16,})/g;

export function parseKeepingInt64(text: string): unknown {
  return JSON.parse(text.replace(LONG_AMOUNT, '"$1":$2"$3"'));
}

/**
 * POSTs JSON to `/wallet/*` endpoints and validates the answer with zod. Every transport failure,
 * HTTP error, `{"Error": …}` body (java-tron answers HTTP 200 with it) or malformed answer is a
 * TronApiError (retryable).
 */
export class TronHttpClient {
  private readonly base: string;
  private readonly fetchImpl: typeof globalThis.fetch;
  private readonly timeoutMs: number;
  private readonly headers: Record<string, string>;

  constructor(options: TronHttpClientOptions) {
    this.base = options.url.replace(/\/+$/, "");
    this.fetchImpl = options.fetch ?? globalThis.fetch;
    this.timeoutMs = options.timeoutMs ?? 30_000;
    this.headers = { "content-type": "application/json", accept: "application/json" };
    if (options.apiKey !== undefined) this.headers["TRON-PRO-API-KEY"] = options.apiKey;
  }

  async post<S extends z.ZodType>(endpoint: string, body: unknown, schema: S): Promise<z.output<S>> {
    let response: Response;
    try {
      response = await this.fetchImpl(`${this.base}${endpoint}`, {
        method: "POST",
        headers: this.headers,
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch (error) {
      throw new TronApiError(endpoint, "node unreachable", { cause: error });
    }
    let text: string;
    try {
      text = await response.text();
    } catch (error) {
      throw new TronApiError(endpoint, "answer interrupted", { cause: error });
    }
    if (!response.ok) {
      throw new TronApiError(endpoint, `HTTP ${response.status} ${text.slice(0, 200)}`, {
        details: { status: response.status },
      });
    }
    let json: unknown;
    try {
      json = parseKeepingInt64(text);
    } catch (error) {
      throw new TronApiError(endpoint, "answer is not JSON", { cause: error });
    }
    if (typeof json === "object" && json !== null && "Error" in json) {
      throw new TronApiError(endpoint, `node error: ${String(Reflect.get(json, "Error")).slice(0, 300)}`);
    }
    const parsed = schema.safeParse(json);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const where = issue?.path.join(".") || "(root)";
      throw new TronApiError(endpoint, `unexpected answer at ${where}: ${issue?.message}`, { cause: parsed.error });
    }
    return parsed.data;
  }
}
