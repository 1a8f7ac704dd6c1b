import { ChainMisconfiguredError, type Logger } from "@mp/core";
import { parseRpcEndpoint, type RpcEndpoint, scrubSecrets } from "./endpoint.ts";
import { parseJsonExact } from "./exact-json.ts";
import { RpcUnavailableError } from "./rpc-errors.ts";

/** What the transport calls: `fetch`, or a stand-in answering the same way. */
export type FetchLike = (input: string, init: RequestInit) => Promise<Response>;

export interface HttpTransportOptions {
  /** The node's URL from the chain config; credentials in it are sent as basic auth. */
  url: string;
  /** Names the node in every message: "Solana RPC", "Bitcoin RPC", "Tron API". */
  label: string;
  /** The setting holding the URL, named in configuration errors (e.g. CHAINS_CONFIG.BITCOIN.rpcUrl). */
  setting: string;
  fetch?: FetchLike | undefined;
  /** Per HTTP request (default 30 s: a full block can be several MB). */
  timeoutMs?: number | undefined;
  /** Extra headers, e.g. an API key header; never logged. */
  headers?: Record<string, string> | undefined;
  logger?: Logger | undefined;
}

export interface PostOptions {
  /**
   * A non-2xx answer whose body is JSON is returned as the answer (Bitcoin Core sends a failed
   * JSON-RPC 1.0 call as HTTP 500 or 404 with the error in the body); 401/403 still throw.
   */
  jsonErrorBodies?: boolean;
}

export const DEFAULT_RPC_TIMEOUT_MS = 30_000;

/**
 * The one HTTP transport of the clients that do not use viem's (Solana, Bitcoin, Tron): POST with a
 * timeout, the answer parsed by the exact-number JSON parser (no u64 loses a digit), and every
 * failure mapped once:
 * - 401/403: ChainMisconfiguredError (not retryable): the node refuses our credentials;
 * - unreachable, timeout, any other non-2xx (429, 5xx, …), a body that is not JSON:
 *   RpcUnavailableError (retryable).
 * Neither the URL nor a key ever appears in an error or a log line: node texts are scrubbed.
 */
export class HttpTransport {
  readonly label: string;
  private readonly endpoint: RpcEndpoint;
  private readonly setting: string;
  private readonly fetchImpl: FetchLike;
  private readonly timeoutMs: number;
  private readonly headers: Record<string, string>;
  private readonly headerSecrets: string[];
  private readonly logger: Logger | undefined;

  constructor(options: HttpTransportOptions) {
    this.label = options.label;
    this.setting = options.setting;
    this.endpoint = parseRpcEndpoint(options.url, options.setting);
    this.fetchImpl = options.fetch ?? ((input, init) => fetch(input, init));
    this.timeoutMs = options.timeoutMs ?? DEFAULT_RPC_TIMEOUT_MS;
    this.headers = { "content-type": "application/json", accept: "application/json", ...options.headers };
    this.headerSecrets = Object.values(options.headers ?? {});
    if (this.endpoint.authorization !== undefined) this.headers.authorization = this.endpoint.authorization;
    this.logger = options.logger;
  }

  /** Removes the URL, its secrets and the extra header values (API keys) from a text that may echo them. */
  scrub(text: string): string {
    return scrubSecrets(this.endpoint.scrub(text), this.headerSecrets);
  }

  /** POSTs `body` (JSON text) to the URL, plus `path` when given; `what` names the call in errors. */
  async post(path: string, body: string, what: string, options: PostOptions = {}): Promise<unknown> {
    const target = path === "" ? this.endpoint.url : `${this.endpoint.url.replace(/\/+$/, "")}${path}`;
    let response: Response;
    let text: string;
    try {
      response = await this.fetchImpl(target, {
        method: "POST",
        headers: this.headers,
        body,
        signal: AbortSignal.timeout(this.timeoutMs),
      });
      text = await response.text();
    } catch (error) {
      const why = this.scrub(describeFetchFailure(error, this.timeoutMs));
      this.logger?.warn({ node: this.label, what, err: why }, "rpc node unreachable");
      throw new RpcUnavailableError(`${this.label} ${what}: node unreachable (${why})`, { reason: "unreachable" });
    }
    const status = response.status;
    if (status === 401 || status === 403) {
      throw new ChainMisconfiguredError(
        `${this.label} ${what}: the node refused our credentials (HTTP ${status}); check ${this.setting}`,
        { details: { status } },
      );
    }
    if (!response.ok && !(options.jsonErrorBodies && looksLikeJson(text))) {
      throw new RpcUnavailableError(`${this.label} ${what}: HTTP ${status} ${this.scrub(text.slice(0, 200))}`, {
        status,
      });
    }
    try {
      return parseJsonExact(text);
    } catch {
      throw new RpcUnavailableError(`${this.label} ${what}: answer is not JSON (HTTP ${status})`, { status });
    }
  }
}

function looksLikeJson(text: string): boolean {
  const start = text.trimStart();
  return start.startsWith("{") || start.startsWith("[");
}

/** Why a fetch failed, in words safe to scrub: timeout, or the system error under "fetch failed". */
function describeFetchFailure(error: unknown, timeoutMs: number): string {
  if (error instanceof Error && (error.name === "TimeoutError" || error.name === "AbortError")) {
    return `no answer within ${timeoutMs} ms`;
  }
  let cause: unknown = error;
  for (let depth = 0; depth < 5 && cause instanceof Error; depth++) {
    if ("code" in cause && typeof cause.code === "string") return `${cause.code}: ${cause.message}`;
    cause = cause.cause;
  }
  return error instanceof Error ? error.message : String(error);
}
