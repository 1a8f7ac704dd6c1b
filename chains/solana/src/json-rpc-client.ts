import { ServiceUnavailableError } from "@mp/core";
import { z } from "zod";

export interface JsonRpcRequest {
  method: string;
  params: unknown[];
}

/** One answer of a batch: the result, or the node's JSON-RPC error (left to the caller to judge). */
export type JsonRpcOutcome = { ok: true; result: unknown } | { ok: false; code: number; message: string };

export interface JsonRpcClientOptions {
  url: string;
  fetch?: typeof globalThis.fetch | undefined;
  timeoutMs?: number | undefined;
}

const responseSchema = z.object({
  id: z.union([z.number(), z.string(), z.null()]),
  result: z.unknown().optional(),
  error: z.object({ code: z.number(), message: z.string() }).optional(),
});
const batchResponseSchema = z.array(responseSchema);

/**
 * Lamport amounts are u64 written as bare JSON numbers; JSON.parse would round those above 2^53
 * (about 9 million SOL). Quoting them first keeps every digit; the schemas accept both forms. A key
 * inside a JSON string would be escaped (`\"lamports\"`), so log text can never match.
 */
const LONG_LAMPORTS = /"lamports":(\s*)(\d{16,})/g;

function parseKeepingU64(text: string): unknown {
  return JSON.parse(text.replace(LONG_LAMPORTS, '"lamports":$1"$2"'));
}

/**
 * Minimal Solana JSON-RPC transport over fetch. Every transport failure, HTTP error or malformed
 * answer is a ServiceUnavailableError (retryable): the indexer backs off and tries again. The RPC
 * URL never appears in an error, as providers put API keys in it.
 */
export class JsonRpcClient {
  private readonly url: string;
  private readonly fetchImpl: typeof globalThis.fetch;
  private readonly timeoutMs: number;
  private nextId = 1;

  constructor(options: JsonRpcClientOptions) {
    this.url = options.url;
    this.fetchImpl = options.fetch ?? globalThis.fetch;
    this.timeoutMs = options.timeoutMs ?? 30_000;
  }

  /** One call; a JSON-RPC error becomes a ServiceUnavailableError. */
  async call(request: JsonRpcRequest): Promise<unknown> {
    const [outcome] = await this.batch([request]);
    if (!outcome) throw new ServiceUnavailableError(`Solana RPC ${request.method}: no answer`);
    if (!outcome.ok) {
      throw new ServiceUnavailableError(`Solana RPC ${request.method} failed: ${outcome.code} ${outcome.message}`, {
        details: { code: outcome.code },
      });
    }
    return outcome.result;
  }

  /**
   * Sends the requests in one HTTP request (a JSON-RPC batch when there are several, a plain call
   * when there is one, for providers that refuse batches) and returns the outcomes in request order.
   */
  async batch(requests: readonly JsonRpcRequest[]): Promise<JsonRpcOutcome[]> {
    if (requests.length === 0) return [];
    const ids = requests.map(() => this.nextId++);
    const envelopes = requests.map((request, i) => ({
      jsonrpc: "2.0",
      id: ids[i],
      method: request.method,
      params: request.params,
    }));
    const what = requests.length === 1 ? (requests[0]?.method ?? "call") : `batch of ${requests.length}`;
    const text = await this.post(JSON.stringify(envelopes.length === 1 ? envelopes[0] : envelopes), what);

    let json: unknown;
    try {
      json = parseKeepingU64(text);
    } catch (error) {
      throw new ServiceUnavailableError(`Solana RPC ${what}: answer is not JSON`, { cause: error });
    }
    const parsed = (Array.isArray(json) ? batchResponseSchema : responseSchema.transform((r) => [r])).safeParse(json);
    if (!parsed.success) {
      throw new ServiceUnavailableError(`Solana RPC ${what}: malformed JSON-RPC answer`, { cause: parsed.error });
    }
    const byId = new Map(parsed.data.map((response) => [response.id, response]));
    return ids.map((id, i) => {
      const response = byId.get(id);
      const method = requests[i]?.method ?? "call";
      if (!response) {
        // A batch refused as a whole comes back as one error with a null id.
        const refusal = parsed.data.find((r) => r.id === null && r.error);
        const reason = refusal?.error ? `: ${refusal.error.code} ${refusal.error.message}` : "";
        throw new ServiceUnavailableError(`Solana RPC ${method}: no answer for request ${id}${reason}`);
      }
      if (response.error) return { ok: false, code: response.error.code, message: response.error.message };
      return { ok: true, result: response.result ?? null };
    });
  }

  private async post(body: string, what: string): Promise<string> {
    let response: Response;
    try {
      response = await this.fetchImpl(this.url, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body,
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch (error) {
      throw new ServiceUnavailableError(`Solana RPC ${what}: node unreachable`, { cause: error });
    }
    let text: string;
    try {
      text = await response.text();
    } catch (error) {
      throw new ServiceUnavailableError(`Solana RPC ${what}: answer interrupted`, { cause: error });
    }
    if (!response.ok) {
      throw new ServiceUnavailableError(`Solana RPC ${what}: HTTP ${response.status} ${text.slice(0, 200)}`, {
        details: { status: response.status },
      });
    }
    return text;
  }
}
