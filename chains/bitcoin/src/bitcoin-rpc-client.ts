import { ConfigError, type Logger, ServiceUnavailableError } from "@mp/core";
import { z } from "zod";
import { BitcoinRpcError } from "./bitcoin-rpc-error.ts";
import { type JsonValue, parseJsonExact, stringifyJson } from "./exact-json.ts";

export type FetchLike = (input: string, init: RequestInit) => Promise<Response>;

export interface RpcCall {
  method: string;
  params: readonly JsonValue[];
}

export interface BitcoinRpcClientOptions {
  fetch?: FetchLike;
  logger?: Logger;
  /** Per HTTP request; a large getblock batch can take a while on a busy node. */
  timeoutMs?: number;
  /** Names the setting in configuration errors. */
  setting?: string;
}

const rpcErrorSchema = z.object({ code: z.number(), message: z.string() });
// Bitcoin Core replies with JSON-RPC 1.0 style `{result, error, id}` to the 1.0 requests sent here.
const rpcResponseSchema = z.object({
  result: z.unknown().optional(),
  error: rpcErrorSchema.nullable().optional(),
  id: z.union([z.number(), z.string(), z.null()]),
});

/**
 * Bitcoin Core JSON-RPC over HTTP. Credentials come from the URL (`http://user:pass@host:port`) and
 * are sent as basic auth; they never appear in errors or logs. Batches are one HTTP request (Core
 * runs them in order) and their answers are matched by id. Responses are parsed with exact decimals.
 */
export class BitcoinRpcClient {
  private readonly endpoint: string;
  /** host:port only: safe for messages. */
  private readonly where: string;
  private readonly authorization: string | undefined;
  private readonly fetchImpl: FetchLike;
  private readonly logger: Logger | undefined;
  private readonly timeoutMs: number;
  private readonly setting: string;
  private nextId = 1;

  constructor(rpcUrl: string, options: BitcoinRpcClientOptions = {}) {
    this.setting = options.setting ?? "CHAINS_CONFIG.BITCOIN.rpcUrl";
    let url: URL;
    try {
      url = new URL(rpcUrl);
    } catch {
      throw new ConfigError(this.setting, "is not a valid URL");
    }
    if (url.protocol !== "http:" && url.protocol !== "https:") {
      throw new ConfigError(this.setting, "must be an http(s) URL");
    }
    if (url.username !== "" || url.password !== "") {
      const user = decodeURIComponent(url.username);
      const password = decodeURIComponent(url.password);
      this.authorization = `Basic ${Buffer.from(`${user}:${password}`).toString("base64")}`;
    }
    url.username = "";
    url.password = "";
    this.endpoint = url.toString();
    this.where = url.host;
    this.fetchImpl = options.fetch ?? ((input, init) => fetch(input, init));
    this.logger = options.logger;
    this.timeoutMs = options.timeoutMs ?? 30_000;
  }

  /** One call; an RPC error is thrown as BitcoinRpcError. */
  async call(method: string, params: readonly JsonValue[] = []): Promise<unknown> {
    const [result] = await this.batch([{ method, params }]);
    return result;
  }

  /** Several calls in one HTTP request; results in the order of `calls`. Any failed call throws. */
  async batch(calls: readonly RpcCall[]): Promise<unknown[]> {
    if (calls.length === 0) return [];
    const firstId = this.nextId;
    this.nextId += calls.length;
    const body = `[${calls
      .map((call, index) => {
        const params = stringifyJson(call.params);
        return `{"jsonrpc":"1.0","id":${firstId + index},"method":${JSON.stringify(call.method)},"params":${params}}`;
      })
      .join(",")}]`;
    const text = await this.post(body, calls.length === 1 ? (calls[0]?.method ?? "") : `batch of ${calls.length}`);
    let parsed: unknown;
    try {
      parsed = parseJsonExact(text);
    } catch (error) {
      throw new ServiceUnavailableError(`Bitcoin RPC at ${this.where} returned invalid JSON`, { cause: error });
    }
    // Core answers a batch with an array; a whole-request failure (e.g. parse error) is one object.
    const items = Array.isArray(parsed) ? parsed : [parsed];
    const byId = new Map<unknown, z.infer<typeof rpcResponseSchema>>();
    for (const item of items) {
      const response = rpcResponseSchema.safeParse(item);
      if (!response.success) {
        throw new ServiceUnavailableError(`Bitcoin RPC at ${this.where} returned a malformed response`, {
          cause: response.error,
        });
      }
      byId.set(response.data.id, response.data);
    }
    return calls.map((call, index) => {
      const response = byId.get(firstId + index) ?? (items.length === 1 ? byId.get(null) : undefined);
      if (response === undefined) {
        throw new ServiceUnavailableError(`Bitcoin RPC at ${this.where} did not answer ${call.method}`);
      }
      if (response.error) throw new BitcoinRpcError(call.method, response.error.code, response.error.message);
      return response.result ?? null;
    });
  }

  private async post(body: string, what: string): Promise<string> {
    const headers: Record<string, string> = { "content-type": "application/json" };
    if (this.authorization !== undefined) headers.authorization = this.authorization;
    let response: Response;
    let text: string;
    try {
      response = await this.fetchImpl(this.endpoint, {
        method: "POST",
        headers,
        body,
        signal: AbortSignal.timeout(this.timeoutMs),
      });
      text = await response.text();
    } catch (error) {
      this.logger?.warn({ where: this.where, what, err: describe(error) }, "bitcoin rpc unreachable");
      throw new ServiceUnavailableError(`Bitcoin RPC at ${this.where} is unreachable (${what})`, { cause: error });
    }
    if (response.status === 401 || response.status === 403) {
      throw new ConfigError(
        this.setting,
        `the node at ${this.where} rejected the RPC credentials (HTTP ${response.status})`,
      );
    }
    // Core answers a failed single 1.0 call with HTTP 500 (404 for an unknown method) and a JSON-RPC
    // error body: that body is the useful part, so only a non-JSON failure is reported by status.
    if (!response.ok && !text.trimStart().startsWith("{") && !text.trimStart().startsWith("[")) {
      throw new ServiceUnavailableError(`Bitcoin RPC at ${this.where} answered HTTP ${response.status} (${what})`, {
        details: { status: response.status },
      });
    }
    return text;
  }
}

function describe(error: unknown): string {
  if (error instanceof Error) {
    const cause = error.cause instanceof Error ? `: ${error.cause.message}` : "";
    return `${error.message}${cause}`;
  }
  return String(error);
}
