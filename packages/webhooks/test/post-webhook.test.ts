import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createWebhookPoster, RESPONSE_BODY_LIMIT, type WebhookPoster } from "../src/post-webhook.ts";
import type { SignedHeaders } from "../src/signing.ts";

/**
 * The delivery client against a real HTTP server on loopback: what one attempt records for each way
 * a receiver can answer, and the rules its connections obey.
 */
const HEADERS: SignedHeaders = {
  "webhook-id": "evt_1",
  "webhook-timestamp": "1700000000",
  "webhook-signature": "v1,c2lnbmF0dXJl",
};

type Handler = (req: IncomingMessage, res: ServerResponse, body: string) => void;
const handlers = new Map<string, Handler>();
let server: Server;
let base: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (chunk: string) => {
      body += chunk;
    });
    req.on("end", () => (handlers.get(req.url ?? "") ?? ((_q, r) => r.writeHead(404).end()))(req, res, body));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const poster = (timeoutMs = 5_000): WebhookPoster => createWebhookPoster({ environment: "sandbox", timeoutMs });

describe("the webhook poster", () => {
  it("posts the exact body with the signed headers, its type, length and user agent; records status and answer", async () => {
    let seen: { headers: IncomingMessage["headers"]; body: string; method?: string | undefined } | undefined;
    handlers.set("/ok?x=1", (req, res, body) => {
      seen = { headers: req.headers, body, method: req.method };
      res.writeHead(200, { "content-type": "text/plain" }).end("thanks é");
    });
    const body = JSON.stringify({ id: "evt_1", data: { note: "café ✓" } });
    const client = poster();
    const outcome = await client.post(`${base}/ok?x=1`, HEADERS, body);
    client.close();
    expect(outcome).toMatchObject({ statusCode: 200, responseBody: "thanks é" });
    expect(outcome.error).toBeUndefined();
    expect(outcome.latencyMs).toBeGreaterThanOrEqual(0);
    expect(seen?.method).toBe("POST");
    expect(seen?.body).toBe(body);
    expect(seen?.headers).toMatchObject({
      ...HEADERS,
      "content-type": "application/json",
      "content-length": String(Buffer.byteLength(body, "utf8")),
      "user-agent": "merchant-payments-webhooks/1",
    });
  });

  it("follows no redirect: a 3xx is the attempt's answer", async () => {
    let followed = false;
    handlers.set("/moved", (_req, res) => res.writeHead(301, { location: `${base}/target` }).end());
    handlers.set("/target", (_req, res) => {
      followed = true;
      res.writeHead(200).end();
    });
    const client = poster();
    const outcome = await client.post(`${base}/moved`, HEADERS, "{}");
    client.close();
    expect(outcome.statusCode).toBe(301);
    expect(followed).toBe(false);
  });

  it("keeps a 429's Retry-After", async () => {
    handlers.set("/busy", (_req, res) => res.writeHead(429, { "Retry-After": "120" }).end("slow down"));
    const client = poster();
    const outcome = await client.post(`${base}/busy`, HEADERS, "{}");
    client.close();
    expect(outcome).toMatchObject({ statusCode: 429, retryAfter: "120", responseBody: "slow down" });
  });

  it("stores at most RESPONSE_BODY_LIMIT bytes of an answer, and still counts the status of one too long to read", async () => {
    handlers.set("/long", (_req, res) => res.writeHead(200).end("é".repeat(RESPONSE_BODY_LIMIT)));
    handlers.set("/endless", (_req, res) => {
      res.writeHead(200);
      const chunk = "x".repeat(16 * 1024);
      // Far past what the client reads (64 KiB): it drops the connection, the status stands.
      const write = () => {
        while (res.write(chunk)) {
          if (res.destroyed) return;
        }
        res.once("drain", write);
      };
      write();
      res.on("close", () => res.removeAllListeners("drain"));
    });
    const client = poster();
    const long = await client.post(`${base}/long`, HEADERS, "{}");
    const endless = await client.post(`${base}/endless`, HEADERS, "{}");
    client.close();
    expect(long.statusCode).toBe(200);
    // Cut at a character's start: 512 two-byte characters.
    expect(long.responseBody).toBe("é".repeat(RESPONSE_BODY_LIMIT / 2));
    expect(endless.statusCode).toBe(200);
    expect(endless.responseBody).toHaveLength(RESPONSE_BODY_LIMIT);
  });

  it("records the status of an answer the receiver cut short after it", async () => {
    handlers.set("/cut", (_req, res) => {
      res.writeHead(500, { "content-length": "100" });
      res.write("partial", () => res.destroy());
    });
    const client = poster();
    const outcome = await client.post(`${base}/cut`, HEADERS, "{}");
    client.close();
    expect(outcome.statusCode).toBe(500);
  });

  it("ends an attempt at its deadline, whether the receiver never answers or stalls mid-answer", async () => {
    handlers.set("/silent", () => undefined);
    handlers.set("/stall", (_req, res) => {
      res.writeHead(200, { "content-length": "100" });
      res.write("start");
    });
    const client = poster(300);
    const [silent, stall] = await Promise.all([
      client.post(`${base}/silent`, HEADERS, "{}"),
      client.post(`${base}/stall`, HEADERS, "{}"),
    ]);
    client.close();
    expect(silent.statusCode).toBeUndefined();
    expect(silent.error).toBe("timed out after 300 ms");
    expect(silent.latencyMs).toBeGreaterThanOrEqual(250);
    expect(stall.error).toBe("timed out after 300 ms");
  });

  it("names the cause when no answer comes: a refused connection, a refused URL, a host refused after DNS", async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const client = poster();
    const refused = await client.post(`http://127.0.0.1:${port}/`, HEADERS, "{}");
    expect(refused.statusCode).toBeUndefined();
    expect(refused.error).toMatch(/^ECONNREFUSED: /);
    const ftp = await client.post("ftp://example.com/hook", HEADERS, "{}");
    expect(ftp.error).toBe("must be an http or https URL");
    client.close();

    // Production: a name resolving to loopback is refused at connection, no request is made.
    let requests = 0;
    handlers.set("/prod", (_req, res) => {
      requests++;
      res.writeHead(200).end();
    });
    const production = createWebhookPoster({
      environment: "production",
      timeoutMs: 5_000,
      resolve: async () => [{ address: "127.0.0.1", family: 4 }],
    });
    const { port: serverPort } = server.address() as AddressInfo;
    const rebound = await production.post(`https://hooks.example.com:${serverPort}/prod`, HEADERS, "{}");
    production.close();
    expect(rebound.statusCode).toBeUndefined();
    expect(rebound.error).toMatch(/resolves to 127\.0\.0\.1: loopback addresses are refused in production/);
    expect(requests).toBe(0);
  });

  it("reuses its connections (keep-alive) across attempts", async () => {
    const ports = new Set<number>();
    handlers.set("/reuse", (req, res) => {
      ports.add(req.socket.remotePort ?? 0);
      res.writeHead(204).end();
    });
    const client = poster();
    for (let i = 0; i < 10; i++) expect((await client.post(`${base}/reuse`, HEADERS, "{}")).statusCode).toBe(204);
    client.close();
    // Ten attempts one after another: a connection or two (the next attempt may start in the moment
    // between an answer's end and its connection's return to the pool), never one each.
    expect(ports.size).toBeLessThanOrEqual(2);
  });

  it("speaks TLS to an https URL through the guarded lookup, and refuses a certificate it cannot verify", async () => {
    // A self-signed certificate for hooks.test (openssl, as Debian ships it): the handshake must fail
    // on verification, after the guard resolved the name to the address the socket then used.
    const dir = mkdtempSync(join(tmpdir(), "webhook-tls-"));
    try {
      execFileSync(
        "openssl",
        [
          "req",
          "-x509",
          "-newkey",
          "rsa:2048",
          "-nodes",
          "-days",
          "1",
          "-subj",
          "/CN=hooks.test",
          "-addext",
          "subjectAltName=DNS:hooks.test",
          "-keyout",
          join(dir, "key.pem"),
          "-out",
          join(dir, "cert.pem"),
        ],
        { stdio: "ignore" },
      );
      let requests = 0;
      const tls = createHttpsServer(
        { key: readFileSync(join(dir, "key.pem")), cert: readFileSync(join(dir, "cert.pem")) },
        (_req, res) => {
          requests++;
          res.writeHead(200).end();
        },
      );
      await new Promise<void>((resolve) => tls.listen(0, "127.0.0.1", resolve));
      const resolved: string[] = [];
      const client = createWebhookPoster({
        environment: "sandbox",
        timeoutMs: 5_000,
        resolve: async (hostname) => {
          resolved.push(hostname);
          return [{ address: "127.0.0.1", family: 4 }];
        },
      });
      const outcome = await client.post(`https://hooks.test:${(tls.address() as AddressInfo).port}/`, HEADERS, "{}");
      client.close();
      tls.closeAllConnections();
      await new Promise((resolve) => tls.close(resolve));
      expect(resolved).toEqual(["hooks.test"]);
      expect(outcome.statusCode).toBeUndefined();
      expect(outcome.error).toMatch(/^DEPTH_ZERO_SELF_SIGNED_CERT: /);
      expect(requests).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
