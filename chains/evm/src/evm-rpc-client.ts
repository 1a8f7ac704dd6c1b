import { validatedAnswer } from "@mp/rpc";
import { type Client, createClient } from "viem";
import type { z } from "zod";
import { evmTransport } from "./evm-transport.ts";
import { credentialsRefused, rpcFailureError } from "./rpc-failure.ts";

export interface EvmRpcClientOptions {
  url: string;
  /** The setting holding the URL, named when the node refuses our credentials. */
  setting: string;
  fetch?: typeof globalThis.fetch | undefined;
  timeoutMs: number;
  maxResponseBytes: number;
  /** Calls issued in the same tick go out as one JSON-RPC batch of at most this many; undefined: no batching. */
  batchSize?: number | undefined;
}

/** Any method, answer unchecked: the schemas in rpc-schemas.ts check what comes back. */
type UntypedRpc = { Parameters: unknown[]; ReturnType: unknown };

export interface RpcCall {
  method: string;
  params: unknown[];
}

/**
 * JSON-RPC over viem's http transport. viem retries nothing here (the indexer owns retries and
 * backoff); every failure is a ServiceUnavailableError whose details say why (see rpc-failure.ts).
 * Answers are `unknown` until a zod schema has checked them.
 */
export class EvmRpcClient {
  private readonly client: Client;
  private readonly url: string;
  private readonly setting: string;

  constructor(options: EvmRpcClientOptions) {
    this.url = options.url;
    this.setting = options.setting;
    const transport = evmTransport(options.url, {
      timeoutMs: options.timeoutMs,
      batchSize: options.batchSize,
      maxResponseBytes: options.maxResponseBytes,
      fetch: options.fetch,
    });
    this.client = createClient({ transport });
  }

  async call(call: RpcCall): Promise<unknown> {
    try {
      return await this.client.request<UntypedRpc>({ method: call.method, params: call.params });
    } catch (error) {
      const failure = rpcFailureError(call.method, error, this.url);
      throw credentialsRefused(failure.failure, this.setting) ?? failure;
    }
  }

  /** Issued together, so the transport sends them as JSON-RPC batches; answers in call order. */
  many(calls: readonly RpcCall[]): Promise<unknown[]> {
    return Promise.all(calls.map((call) => this.call(call)));
  }
}

/** The shared answer check (@mp/rpc), named for the EVM call: a mismatch is the node's fault, so retryable. */
export function validated<S extends z.ZodType>(schema: S, value: unknown, method: string, what: string): z.output<S> {
  return validatedAnswer(schema, value, `EVM RPC ${method} ${what}`);
}
