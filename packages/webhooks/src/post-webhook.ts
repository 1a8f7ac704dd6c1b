import http, { request as httpRequest } from "node:http";
import https, { request as httpsRequest } from "node:https";
import { LruCache } from "@mp/core";
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

/** URLs whose parse and verdict are kept (a worker sends to far fewer endpoints than this). */
const TARGET_CACHE_SIZE = 10_000;

/** Where one URL's requests go, as http.request's options. */
interface Target {
  client: typeof httpRequest;
  agent: http.Agent;
  protocol: string;
  hostname: string;
  port: string;
  path: string;
}

export interface WebhookPoster {
  post(url: string, headers: SignedHeaders, body: string): Promise<PostOutcome>;
  close(): void;
}

/**
 * The HTTP client of deliveries: keep-alive agents, a lookup that checks every resolved address
 * against the deployment's rules and connects to exactly the address it checked, no redirects
 * followed (a 3xx is a failure), one deadline per attempt from the first byte out to the last in.
 */
export function createWebhookPoster(options: {
  environment: WebhookEnvironment;
  timeoutMs: number;
  resolve?: ResolveHost;
}): WebhookPoster {
  const lookup = guardedLookup(options.environment, options.resolve ?? resolveWithSystem);
  const agents = {
    "http:": new http.Agent({ keepAlive: true, maxSockets: Number.POSITIVE_INFINITY }),
    "https:": new https.Agent({ keepAlive: true, maxSockets: Number.POSITIVE_INFINITY }),
  };
  // The URL's parse and its rules' verdict, per URL: the same for every attempt in this process (the
  // rules are code and the environment is fixed), so they are worked out once, not per request. The
  // addresses a host name resolves to are still checked at each connection (the lookup).
  const targets = new LruCache<string, Target | { refused: string }>(TARGET_CACHE_SIZE);
  const targetOf = (rawUrl: string) =>
    targets.getOrCreate(rawUrl, () => {
      try {
        const url = new URL(rawUrl);
        checkUrlAtDelivery(url, options.environment);
        const secure = url.protocol === "https:";
        return {
          client: secure ? httpsRequest : httpRequest,
          agent: secure ? agents["https:"] : agents["http:"],
          protocol: url.protocol,
          // urlToHttpOptions' forms: an IPv6 literal without its brackets.
          hostname: url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname,
          port: url.port,
          path: `${url.pathname}${url.search}`,
        };
      } catch (error) {
        return { refused: error instanceof Error ? error.message : String(error) };
      }
    });
  return {
    post(rawUrl, headers, body) {
      const started = performance.now();
      const latency = () => Math.round(performance.now() - started);
      const target = targetOf(rawUrl);
      if ("refused" in target) return Promise.resolve({ latencyMs: latency(), error: target.refused });
      return new Promise<PostOutcome>((resolve) => {
        let settled = false;
        const finish = (outcome: Omit<PostOutcome, "latencyMs">) => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          resolve({ ...outcome, latencyMs: latency() });
        };
        const req = target.client({
          method: "POST",
          protocol: target.protocol,
          hostname: target.hostname,
          port: target.port,
          path: target.path,
          agent: target.agent,
          lookup,
          headers: {
            ...headers,
            "content-type": "application/json",
            "content-length": String(Buffer.byteLength(body, "utf8")),
            "user-agent": "merchant-payments-webhooks/1",
          },
        });
        const timer = setTimeout(() => {
          req.destroy();
          finish({ error: `timed out after ${options.timeoutMs} ms` });
        }, options.timeoutMs);
        req.on("error", (error: NodeJS.ErrnoException) =>
          finish({ error: error.code ? `${error.code}: ${error.message}` : error.message }),
        );
        req.on("response", (res) => {
          const chunks: Buffer[] = [];
          let read = 0;
          res.on("data", (chunk: Buffer) => {
            if (read < RESPONSE_BODY_LIMIT) chunks.push(chunk);
            read += chunk.length;
            if (read > READ_LIMIT) res.destroy();
          });
          const done = () =>
            finish({
              statusCode: res.statusCode ?? 0,
              responseBody: truncateUtf8(Buffer.concat(chunks), RESPONSE_BODY_LIMIT),
              ...(typeof res.headers["retry-after"] === "string" ? { retryAfter: res.headers["retry-after"] } : {}),
            });
          res.on("end", done);
          // Destroyed past READ_LIMIT or cut by the receiver after its status: the status still counts.
          res.on("close", done);
        });
        // A string: written with the headers in one write (a Buffer went as a second chunk).
        req.end(body, "utf8");
      });
    },
    close() {
      agents["http:"].destroy();
      agents["https:"].destroy();
    },
  };
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
