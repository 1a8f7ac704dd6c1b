import http from "node:http";
import https from "node:https";
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
  return {
    post(rawUrl, headers, body) {
      const started = performance.now();
      const latency = () => Math.round(performance.now() - started);
      let url: URL;
      try {
        url = new URL(rawUrl);
        checkUrlAtDelivery(url, options.environment);
      } catch (error) {
        return Promise.resolve({ latencyMs: latency(), error: error instanceof Error ? error.message : String(error) });
      }
      const payload = Buffer.from(body, "utf8");
      return new Promise<PostOutcome>((resolve) => {
        let settled = false;
        const finish = (outcome: Omit<PostOutcome, "latencyMs">) => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          resolve({ ...outcome, latencyMs: latency() });
        };
        const client = url.protocol === "https:" ? https : http;
        const req = client.request(url, {
          method: "POST",
          agent: agents[url.protocol as "http:" | "https:"],
          lookup,
          headers: {
            ...headers,
            "content-type": "application/json",
            "content-length": String(payload.length),
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
        req.end(payload);
      });
    },
    close() {
      agents["http:"].destroy();
      agents["https:"].destroy();
    },
  };
}

/** The first `limit` bytes as text, never splitting a UTF-8 character. */
function truncateUtf8(bytes: Buffer, limit: number): string {
  if (bytes.length <= limit) return bytes.toString("utf8");
  let end = limit;
  // Step back over continuation bytes (10xxxxxx) to the start of the cut character.
  while (end > 0 && ((bytes[end] ?? 0) & 0xc0) === 0x80) end--;
  return bytes.subarray(0, end).toString("utf8");
}
