import { LruCache } from "@mp/core";
import { type Dispatcher, Pool } from "undici";
import type { SignedHeaders } from "./signing.ts";
import {
  checkUrlAtDelivery,
  guardedLookup,
  type ResolveHost,
  resolveWithSystem,
  type WebhookEnvironment,
} from "./url-guard.ts";

/** What one attempt came to. `statusCode` is absent when no HTTP answer came. */
export interface PostOutcome {
  statusCode?: number;
  latencyMs: number;
  /** The receiver's answer, first RESPONSE_BODY_LIMIT bytes. */
  responseBody?: string;
  retryAfter?: string;
  error?: string;
}

/** Bytes of a receiver's answer we store. */
export const RESPONSE_BODY_LIMIT = 1024;
/** Bytes we read at most (then the connection is dropped instead of kept for reuse). */
const READ_LIMIT = 64 * 1024;

/**
 * URLs whose parse and verdict are kept, and origins whose connection pool is (a worker sends to far
 * fewer endpoints than this; a pool pushed out is closed once its requests have finished).
 */
const TARGET_CACHE_SIZE = 10_000;

/** Where one URL's requests go: its origin's connection pool and the path. */
interface Target {
  origin: string;
  path: string;
}

export interface WebhookPoster {
  post(url: string, headers: SignedHeaders, body: string): Promise<PostOutcome>;
  close(): void;
}

/**
 * The HTTP client of deliveries: undici's keep-alive connection pools, a lookup that checks every
 * resolved address against the deployment's rules and connects to exactly the address it checked, no
 * redirects followed (a 3xx is a failure), one deadline per attempt from the first byte out to the
 * last in.
 *
 * undici rather than node's http module: its dispatcher answers through plain callbacks (no request
 * and response streams, no events per attempt), which took the client's CPU per POST from 62-74 us to
 * 20-34 us on this 2-core machine (the same receiver, 16 in flight); the worker signs and sends every
 * delivery, and its CPU per delivery was what bounded a backlog's drain (docs/benchmarks.md, webhooks).
 */
export function createWebhookPoster(options: {
  environment: WebhookEnvironment;
  timeoutMs: number;
  resolve?: ResolveHost;
}): WebhookPoster {
  const lookup = guardedLookup(options.environment, options.resolve ?? resolveWithSystem);
  // One keep-alive pool per origin, as many connections as requests in flight. Every connection (http
  // and https alike) resolves its host through the guard: net.connect and tls.connect take the
  // `lookup` undici passes on. undici's own timeouts are off: the attempt's deadline (Attempt) covers
  // connecting, sending and reading. (Not undici's Agent: it never forgets an origin's pool.)
  const pools = new LruCache<string, Pool>(TARGET_CACHE_SIZE, (pool) => void pool.close());
  const poolOf = (origin: string) =>
    pools.getOrCreate(origin, () => new Pool(origin, { connect: { lookup }, headersTimeout: 0, bodyTimeout: 0 }));
  // The URL's parse and its rules' verdict, per URL: the same for every attempt in this process (the
  // rules are code and the environment is fixed), so they are worked out once, not per request. The
  // addresses a host name resolves to are still checked at each connection (the lookup).
  const targets = new LruCache<string, Target | { refused: string }>(TARGET_CACHE_SIZE);
  const targetOf = (rawUrl: string) =>
    targets.getOrCreate(rawUrl, () => {
      try {
        const url = new URL(rawUrl);
        checkUrlAtDelivery(url, options.environment);
        return { origin: url.origin, path: `${url.pathname}${url.search}` };
      } catch (error) {
        return { refused: error instanceof Error ? error.message : String(error) };
      }
    });
  return {
    post(rawUrl, headers, body) {
      const started = performance.now();
      const target = targetOf(rawUrl);
      if ("refused" in target) return Promise.resolve({ latencyMs: 0, error: target.refused });
      return new Promise<PostOutcome>((resolve) => {
        const attempt = new Attempt(started, options.timeoutMs, resolve);
        poolOf(target.origin).dispatch(
          {
            path: target.path,
            method: "POST",
            // Written out, not spread: a spread copy cost ~1.3 us per delivery.
            headers: {
              "webhook-id": headers["webhook-id"],
              "webhook-timestamp": headers["webhook-timestamp"],
              "webhook-signature": headers["webhook-signature"],
              "content-type": "application/json",
              "user-agent": "merchant-payments-webhooks/1",
            },
            body,
          },
          attempt,
        );
      });
    },
    close() {
      for (const pool of pools.values()) void pool.destroy();
    },
  };
}

/**
 * One attempt as undici's dispatcher sees it (its handler): the status, the first READ_LIMIT bytes of
 * the answer and its Retry-After, settled once, at the answer's end, at an error, or at the deadline.
 */
class Attempt implements Dispatcher.DispatchHandlers {
  private statusCode: number | undefined;
  private retryAfter: string | undefined;
  private readonly chunks: Buffer[] = [];
  private read = 0;
  private settled = false;
  private abort: ((reason: Error) => void) | undefined;
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly started: number,
    private readonly timeoutMs: number,
    private readonly resolve: (outcome: PostOutcome) => void,
  ) {
    this.timer = setTimeout(() => this.expire(), timeoutMs);
  }

  onConnect(abort: (reason: Error) => void): void {
    // Past the deadline already (waiting for a connection): never sent.
    if (this.settled) abort(new Error("deadline passed"));
    else this.abort = abort;
  }

  onHeaders(statusCode: number, headers: Buffer[] | string[] | null): boolean {
    this.statusCode = statusCode;
    this.retryAfter = headerValue(headers, "retry-after");
    return true;
  }

  onData(chunk: Buffer): boolean {
    if (this.read < RESPONSE_BODY_LIMIT) this.chunks.push(chunk);
    this.read += chunk.length;
    // Past READ_LIMIT the connection is dropped (onError follows): the status still counts.
    if (this.read > READ_LIMIT) this.abort?.(new Error("answer too long"));
    return true;
  }

  onComplete(): void {
    this.finishWithAnswer();
  }

  onError(error: Error & { code?: string }): void {
    // Cut after its status (by the receiver, or by us past READ_LIMIT): the status still counts.
    if (this.statusCode !== undefined) this.finishWithAnswer();
    else this.finishWithError(error.code ? `${error.code}: ${error.message}` : error.message);
  }

  private expire(): void {
    this.finishWithError(`timed out after ${this.timeoutMs} ms`);
    this.abort?.(new Error("timed out"));
  }

  // Each outcome is built whole (no spread copies: ~0.6 us each, per delivery).
  private finishWithAnswer(): void {
    if (!this.settle()) return;
    const outcome: PostOutcome = {
      statusCode: this.statusCode ?? 0,
      latencyMs: this.elapsedMs(),
      responseBody: truncateUtf8(Buffer.concat(this.chunks), RESPONSE_BODY_LIMIT),
    };
    if (this.retryAfter !== undefined) outcome.retryAfter = this.retryAfter;
    this.resolve(outcome);
  }

  private finishWithError(error: string): void {
    if (this.settle()) this.resolve({ latencyMs: this.elapsedMs(), error });
  }

  /** True the first time only: an attempt settles once. */
  private settle(): boolean {
    if (this.settled) return false;
    this.settled = true;
    clearTimeout(this.timer);
    return true;
  }

  private elapsedMs(): number {
    return Math.round(performance.now() - this.started);
  }
}

/** A header's value from undici's raw list (name, value, name, value...), or undefined. */
function headerValue(raw: Buffer[] | string[] | null, name: string): string | undefined {
  if (!raw) return undefined;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    if (String(raw[i]).toLowerCase() === name) return String(raw[i + 1]);
  }
  return undefined;
}

/**
 * The first `limit` bytes as text, never splitting a UTF-8 character, with any NUL replaced by
 * U+FFFD: PostgreSQL's text cannot hold NUL, and a receiver's answer holding one would make every
 * write of the batch of results it sits in fail, other merchants' with it, on every retry.
 */
function truncateUtf8(bytes: Buffer, limit: number): string {
  let end = bytes.length;
  if (end > limit) {
    end = limit;
    // Step back over continuation bytes (10xxxxxx) to the start of the cut character.
    while (end > 0 && ((bytes[end] ?? 0) & 0xc0) === 0x80) end--;
  }
  return bytes.subarray(0, end).toString("utf8").replaceAll("\u0000", "\ufffd");
}
