import { z } from "zod";
import { type JsonValue, stringifyJson } from "./exact-json.ts";
import { HttpTransport, type HttpTransportOptions } from "./http-transport.ts";
import { JsonRpcError, RpcUnavailableError } from "./rpc-errors.ts";
import { validatedAnswer } from "./validated-answer.ts";

export interface JsonRpcRequest {
  method: string;
  params: readonly JsonValue[];
}

/** One answer of a batch: the result, or the node's JSON-RPC error (left to the caller to judge). */
export type JsonRpcOutcome =
  | { ok: true; result: unknown }
  /** `data`: the error's structured detail where the node gives one (Solana: the preflight's TransactionError). */
  | { ok: false; code: number; message: string; data?: unknown };

export interface JsonRpcClientOptions extends HttpTransportOptions {
  /** "2.0" (default; Solana) or "1.0" (Bitcoin Core, whose failed calls come back as HTTP 500/404). */
  version?: "1.0" | "2.0";
  /**
   * Send a lone call as a one-element batch too (Bitcoin Core: a batch is always answered with
   * HTTP 200 and per-call errors). Default: a lone call goes out plain, as some providers refuse batches.
   */
  alwaysBatch?: boolean;
}

const responseSchema = z.object({
  id: z.union([z.number(), z.string(), z.null()]),
  result: z.unknown().optional(),
  error: z.object({ code: z.number(), message: z.string(), data: z.unknown().optional() }).nullish(),
});
type Response = z.infer<typeof responseSchema>;

/**
 * JSON-RPC over the shared HttpTransport. A lone request goes out as a plain call (some providers
 * refuse batches; see `alwaysBatch`), several as one batch whose answers are matched by id,
 * whatever their order.
 * Params and answers are exact JSON: JsonNumberLiteral params are written as given, and every
 * number an IEEE double could round comes back as its digit string.
 */
export class JsonRpcClient {
  private readonly transport: HttpTransport;
  private readonly version: "1.0" | "2.0";
  private readonly alwaysBatch: boolean;
  private nextId = 1;

  constructor(options: JsonRpcClientOptions) {
    this.transport = new HttpTransport(options);
    this.version = options.version ?? "2.0";
    this.alwaysBatch = options.alwaysBatch ?? false;
  }

  get label(): string {
    return this.transport.label;
  }

  /** One call; a JSON-RPC error is thrown as JsonRpcError. */
  async call(method: string, params: readonly JsonValue[] = []): Promise<unknown> {
    const [result] = await this.all([{ method, params }]);
    return result;
  }

  /** Several calls in one request; results in request order. The first JSON-RPC error throws. */
  async all(requests: readonly JsonRpcRequest[]): Promise<unknown[]> {
    const outcomes = await this.batch(requests);
    return outcomes.map((outcome, i) => {
      if (outcome.ok) return outcome.result;
      throw new JsonRpcError(this.label, requests[i]?.method ?? "call", outcome.code, outcome.message);
    });
  }

  /** Several calls in one request; outcomes in request order, JSON-RPC errors included. */
  async batch(requests: readonly JsonRpcRequest[]): Promise<JsonRpcOutcome[]> {
    if (requests.length === 0) return [];
    const firstId = this.nextId;
    this.nextId += requests.length;
    const envelopes = requests.map(
      (request, i) =>
        `{"jsonrpc":"${this.version}","id":${firstId + i},"method":${JSON.stringify(request.method)},"params":${stringifyJson(request.params)}}`,
    );
    const body = envelopes.length === 1 && !this.alwaysBatch ? (envelopes[0] ?? "") : `[${envelopes.join(",")}]`;
    const what = requests.length === 1 ? (requests[0]?.method ?? "call") : `batch of ${requests.length}`;
    const json = await this.transport.post("", body, what, { jsonErrorBodies: this.version === "1.0" });

    const items = Array.isArray(json) ? json : [json];
    const byId = new Map<unknown, Response>();
    for (const item of items) {
      const parsed = responseSchema.safeParse(item);
      if (!parsed.success) {
        throw new RpcUnavailableError(`${this.label} ${what}: malformed JSON-RPC answer`, { reason: "bad-answer" });
      }
      byId.set(parsed.data.id, parsed.data);
    }
    return requests.map((request, i) => {
      const response = byId.get(firstId + i);
      if (!response) {
        // A request refused as a whole (a batch not allowed, a parse error) is one error with a null id.
        const refusal = byId.get(null)?.error;
        const reason = refusal ? `: ${refusal.code} ${this.transport.scrub(refusal.message)}` : "";
        throw new RpcUnavailableError(`${this.label} ${request.method}: no answer for request ${firstId + i}${reason}`);
      }
      if (response.error) {
        const { code, message, data } = response.error;
        return { ok: false, code, message: this.transport.scrub(message), ...(data === undefined ? {} : { data }) };
      }
      return { ok: true, result: response.result ?? null };
    });
  }

  /** validatedAnswer, with this node's label in the message: `what` names the call (e.g. "getBlock 12"). */
  validated<S extends z.ZodType>(schema: S, value: unknown, what: string): z.output<S> {
    return validatedAnswer(schema, value, `${this.label} ${what}`);
  }
}
