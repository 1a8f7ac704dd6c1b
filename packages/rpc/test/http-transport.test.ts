import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { ChainMisconfiguredError } from "@mp/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import {
  HttpTransport,
  JsonRpcClient,
  JsonRpcError,
  RpcAnswerError,
  RpcUnavailableError,
  validatedAnswer,
} from "../src/index.ts";

/** A real HTTP server whose next answer each test sets; it records what it was sent. */
let server: Server;
let base: string;
let answer: { status: number; body: string } = { status: 200, body: "{}" };
let seen: { url: string; authorization: string | undefined; apiKey: string | undefined; body: string }[] = [];

async function read(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

beforeAll(async () => {
  server = createServer(async (request, response) => {
    seen.push({
      url: request.url ?? "",
      authorization: request.headers.authorization,
      apiKey: request.headers["tron-pro-api-key"] as string | undefined,
      body: await read(request),
    });
    response.writeHead(answer.status, { "content-type": "application/json" });
    response.end(answer.body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const SECRETS = ["alice", "s3cret-pass", "key-0123456789"];
function withSecrets(): string {
  const url = new URL(base);
  url.username = "alice";
  url.password = "s3cret-pass";
  url.pathname = "/v2/key-0123456789";
  return url.toString();
}

function transport(url = withSecrets()): HttpTransport {
  seen = [];
  return new HttpTransport({
    url,
    label: "Test RPC",
    setting: "CHAINS_CONFIG.BITCOIN.rpcUrl",
    headers: { "TRON-PRO-API-KEY": "header-key-42" },
  });
}

async function failure(promise: Promise<unknown>): Promise<Error> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof Error)) throw new Error(`expected an error, got ${String(error)}`);
  const text = JSON.stringify({ message: error.message, cause: String(error.cause), error });
  for (const secret of [...SECRETS, "header-key-42"]) expect(text).not.toContain(secret);
  return error;
}

describe("HttpTransport", () => {
  it("sends URL credentials as basic auth, never in the URL, plus the configured headers", async () => {
    answer = { status: 200, body: '{"ok":true}' };
    await expect(transport().post("/wallet/getnowblock", "{}", "getnowblock")).resolves.toEqual({ ok: true });
    expect(seen[0]).toMatchObject({
      url: "/v2/key-0123456789/wallet/getnowblock",
      authorization: `Basic ${Buffer.from("alice:s3cret-pass").toString("base64")}`,
      apiKey: "header-key-42",
    });
  });

  it("keeps every digit of any integer beyond 2^53 and every decimal, whatever its key", async () => {
    answer = {
      status: 200,
      body: '{"preBalances":[18446744073709551615,5],"fee":9007199254740993,"value":0.1,"slot":250000000}',
    };
    await expect(transport().post("", "{}", "getBlock")).resolves.toEqual({
      preBalances: ["18446744073709551615", 5],
      fee: "9007199254740993",
      value: "0.1",
      slot: 250000000,
    });
  });

  it("401 and 403 are a misconfiguration (not retryable) naming the setting, without the secrets", async () => {
    for (const status of [401, 403]) {
      answer = { status, body: `{"error":"bad key for ${withSecrets()}"}` };
      const error = await failure(transport().post("", "{}", "getblockcount"));
      expect(error).toBeInstanceOf(ChainMisconfiguredError);
      expect(error).toMatchObject({ code: "chain_misconfigured", retryable: false });
      expect(error.message).toContain("CHAINS_CONFIG.BITCOIN.rpcUrl");
      expect(error.message).toContain(`HTTP ${status}`);
    }
  });

  it("429, 5xx and answers that are not JSON are retryable, with the node's words scrubbed", async () => {
    for (const [status, body, words] of [
      [
        429,
        `rate limited: key-0123456789, header-key-42, ${withSecrets()}`,
        /HTTP 429 rate limited: <rpc>, <rpc>, <rpc>/,
      ],
      [500, "internal error", /HTTP 500/],
      [503, "", /HTTP 503/],
      [200, "<html>gateway</html>", /not JSON/],
    ] as const) {
      answer = { status, body };
      const error = await failure(transport().post("", "{}", "getblockcount"));
      expect(error).toBeInstanceOf(RpcUnavailableError);
      expect(error).toMatchObject({ code: "service_unavailable", retryable: true });
      expect(error.message).toMatch(words);
    }
  });

  it("an unreachable node and a timeout are retryable", async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const down = await failure(transport(`http://alice:s3cret-pass@127.0.0.1:${port}/`).post("", "{}", "getSlot"));
    expect(down).toMatchObject({ retryable: true, message: expect.stringMatching(/getSlot: node unreachable/) });

    const silent = createServer(() => {}); // accepts, never answers
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    const slow = new HttpTransport({
      url: `http://127.0.0.1:${(silent.address() as AddressInfo).port}/`,
      label: "Test RPC",
      setting: "X",
      timeoutMs: 50,
    });
    const error = await failure(slow.post("", "{}", "getSlot"));
    silent.closeAllConnections();
    await new Promise<void>((resolve) => silent.close(() => resolve()));
    expect(error).toMatchObject({ retryable: true, message: expect.stringMatching(/no answer within 50 ms/) });
  });
});

describe("JsonRpcClient 1.0 (Bitcoin Core)", () => {
  it("reads the JSON-RPC error Core sends with HTTP 500, as a JsonRpcError carrying its code", async () => {
    answer = {
      status: 500,
      body: '[{"result":null,"error":{"code":-8,"message":"Block height out of range"},"id":1}]',
    };
    const client = new JsonRpcClient({
      url: base,
      label: "Bitcoin RPC",
      setting: "S",
      version: "1.0",
      alwaysBatch: true,
    });
    const error = await failure(client.call("getblockhash", [999]));
    expect(error).toBeInstanceOf(JsonRpcError);
    expect(error).toMatchObject({ rpcCode: -8, method: "getblockhash", retryable: true });
    expect(JSON.parse(seen[0]?.body ?? "")).toEqual([{ jsonrpc: "1.0", id: 1, method: "getblockhash", params: [999] }]);
  });
});

describe("validatedAnswer", () => {
  it("returns the parsed value, or a retryable error saying what was asked and where the answer is wrong", () => {
    const schema = z.object({ blocks: z.array(z.number()) });
    expect(validatedAnswer(schema, { blocks: [1] }, "Solana RPC getBlocks")).toEqual({ blocks: [1] });
    const error = (() => {
      try {
        return validatedAnswer(schema, { blocks: [1, "x"] }, "Solana RPC getBlocks");
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(RpcAnswerError);
    expect(error).toMatchObject({
      retryable: true,
      message: expect.stringMatching(/^Solana RPC getBlocks: unexpected answer at blocks\.1: /),
    });
  });
});
