import { ChainMisconfiguredError, ChainMovedError, ServiceUnavailableError } from "@mp/core";
import { scrubUrl } from "@mp/rpc";
import { BaseError, HttpRequestError, ResponseBodyTooLargeError, RpcRequestError, TimeoutError } from "viem";

/** Why a JSON-RPC call failed, as far as the adapter cares (kept in the error's `details`). */
export interface RpcFailure {
  method: string;
  reason:
    | "rpc-error"
    | "http-error"
    | "unreachable"
    | "timeout"
    | "response-too-large"
    | "bad-answer"
    | "logs-incomplete";
  /** JSON-RPC error code, for `rpc-error`. */
  rpcCode?: number;
  /** HTTP status, for `http-error` (and `rpc-error` sent with a non-2xx status). */
  httpStatus?: number;
  /** The node's own words, with the RPC URL removed. */
  message: string;
}

/**
 * Every failure of an RPC call becomes a ServiceUnavailableError (retryable): the indexer backs
 * off and retries. The URL never appears in the message, the details or the cause, as providers
 * put API keys in it; the original viem error is therefore not attached, only its description.
 */
export function rpcFailureError(method: string, error: unknown, url: string): EvmRpcError {
  return unavailable(describeRpcFailure(method, error, url));
}

/**
 * HTTP 401/403: the node refuses our credentials. Not a flaky network: a ChainMisconfiguredError
 * naming the setting that holds the URL, so the chain stops instead of retrying forever.
 */
export function credentialsRefused(failure: RpcFailure, setting: string): ChainMisconfiguredError | null {
  if (failure.httpStatus !== 401 && failure.httpStatus !== 403) return null;
  return new ChainMisconfiguredError(
    `EVM RPC ${failure.method}: the node refused our credentials (HTTP ${failure.httpStatus}); check ${setting}`,
    { details: { ...failure } },
  );
}

/** A failed EVM RPC call: retryable, with the facts the adapter decides on (range rejections). */
export class EvmRpcError extends ServiceUnavailableError {
  readonly failure: RpcFailure;
  constructor(message: string, failure: RpcFailure, options: { retryable?: boolean } = {}) {
    super(message, { cause: new Error(message), details: { ...failure }, ...options });
    this.failure = failure;
  }
}

export function unavailable(failure: RpcFailure): EvmRpcError {
  const where =
    failure.reason === "rpc-error"
      ? `JSON-RPC error ${failure.rpcCode}`
      : failure.reason === "http-error"
        ? `HTTP ${failure.httpStatus ?? "error"}`
        : failure.reason;
  return new EvmRpcError(`EVM RPC ${failure.method} failed (${where}): ${failure.message}`, failure);
}

/** The blocks, logs or receipts a scan read disagree: the chain moved under it. */
export function chainMoved(what: string): ChainMovedError {
  return new ChainMovedError(`EVM chain changed during the scan (${what}); retry`);
}

export function describeRpcFailure(method: string, error: unknown, url: string): RpcFailure {
  const scrub = (text: string) => scrubUrl(text, url);
  if (error instanceof BaseError) {
    const rpc = error.walk((e) => e instanceof RpcRequestError);
    if (rpc instanceof RpcRequestError) {
      return {
        method,
        reason: "rpc-error",
        rpcCode: rpc.code,
        ...(rpc.status === undefined ? {} : { httpStatus: rpc.status }),
        message: scrub(rpc.details),
      };
    }
    const tooLarge = error.walk((e) => e instanceof ResponseBodyTooLargeError);
    if (tooLarge instanceof ResponseBodyTooLargeError) {
      return {
        method,
        reason: "response-too-large",
        message: `answer of ${tooLarge.size} bytes exceeds ${tooLarge.maxSize}`,
      };
    }
    const timeout = error.walk((e) => e instanceof TimeoutError);
    if (timeout instanceof TimeoutError) return { method, reason: "timeout", message: "no answer in time" };
    const http = error.walk((e) => e instanceof HttpRequestError);
    if (http instanceof HttpRequestError) {
      if (http.status === undefined) {
        return { method, reason: "unreachable", message: scrub(networkCause(http) ?? http.details) };
      }
      return { method, reason: "http-error", httpStatus: http.status, message: scrub(http.details).slice(0, 500) };
    }
    return { method, reason: "bad-answer", message: scrub(error.shortMessage) };
  }
  const message = error instanceof Error ? error.message : String(error);
  return { method, reason: "bad-answer", message: scrub(message) };
}

/** The system error under a failed fetch (ECONNREFUSED, ENOTFOUND, ...), when there is one. */
function networkCause(error: HttpRequestError): string | undefined {
  let cause: unknown = error.cause;
  for (let depth = 0; depth < 5 && cause instanceof Error; depth++) {
    if ("code" in cause && typeof cause.code === "string") return `${cause.code}: ${cause.message}`;
    cause = cause.cause;
  }
  return undefined;
}

/**
 * A provider refusing an eth_getLogs range or result size, by code or by its words (Infura
 * -32005 "query returned more than 10000 results", Alchemy "Log response size exceeded",
 * QuickNode/Ankr/BSC "block range too large"/"exceed maximum block range", "limit exceeded"...),
 * or an answer too large or too slow to receive: a smaller range can succeed.
 */
export function isLogRangeRejection(failure: RpcFailure): boolean {
  switch (failure.reason) {
    case "response-too-large":
    case "timeout":
      return true;
    case "rpc-error":
      return failure.rpcCode === -32005 || failure.httpStatus === 413 || RANGE_REJECTION.test(failure.message);
    case "http-error":
      return failure.httpStatus === 413 || RANGE_REJECTION.test(failure.message);
    default:
      return false;
  }
}

const RANGE_REJECTION = new RegExp(
  [
    "more than \\d+ (results|logs)",
    "block range",
    "range (is )?too (large|wide|big)",
    "range limit",
    "ranges? over \\d+ blocks",
    "limited to (a )?[\\d,]+",
    "requested blocks",
    "too many (results|logs|blocks)",
    "(response|result) size",
    "size exceeded",
    "exceed(s|ed)? (the )?(max|maximum|limit)",
    "limit exceeded",
    "max(imum)? (block )?range",
    "query timeout",
    "timed? ?out",
  ].join("|"),
  "i",
);
