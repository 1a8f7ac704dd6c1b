import { HttpTransport, validatedAnswer } from "@mp/rpc";
import type { z } from "zod";
import { TronApiError } from "./tron-api-error.ts";

export interface TronHttpClientOptions {
  /** Base URL of the full node's HTTP API (e.g. http://127.0.0.1:8090 or https://api.trongrid.io). */
  url: string;
  /** The setting holding the URL, named in configuration errors. */
  setting: string;
  fetch?: typeof globalThis.fetch | undefined;
  timeoutMs?: number | undefined;
  /** Sent as `TRON-PRO-API-KEY` (TronGrid). */
  apiKey?: string | undefined;
}

/**
 * POSTs JSON to `/wallet/*` endpoints over the shared HttpTransport (timeout, exact int64 amounts,
 * 401/403 as ChainMisconfiguredError, everything else retryable, no key in any message) and
 * validates the answer with zod. java-tron answers some failures with HTTP 200 and an
 * `{"Error": …}` body: that is a TronApiError (retryable).
 */
export class TronHttpClient {
  private readonly transport: HttpTransport;

  constructor(options: TronHttpClientOptions) {
    this.transport = new HttpTransport({
      url: options.url,
      label: "Tron API",
      setting: options.setting,
      fetch: options.fetch,
      timeoutMs: options.timeoutMs,
      headers: options.apiKey === undefined ? undefined : { "TRON-PRO-API-KEY": options.apiKey },
    });
  }

  async post<S extends z.ZodType>(endpoint: string, body: unknown, schema: S): Promise<z.output<S>> {
    const json = await this.transport.post(endpoint, JSON.stringify(body), endpoint);
    if (typeof json === "object" && json !== null && "Error" in json) {
      const message = this.transport.scrub(String(Reflect.get(json, "Error")).slice(0, 300));
      throw new TronApiError(endpoint, `node error: ${message}`);
    }
    return validatedAnswer(schema, json, `Tron API ${endpoint}`);
  }
}
