import { ServiceUnavailableError } from "@mp/core";
import { describe, expect, it } from "vitest";
import { JsonRpcClient, type JsonRpcClientOptions } from "../src/index.ts";

const URL_WITH_KEY = "https://rpc.example/?api-key=secret-123";
const solana = (options: Partial<JsonRpcClientOptions>) =>
  new JsonRpcClient({ url: URL_WITH_KEY, label: "Solana RPC", setting: "CHAINS_CONFIG.SOLANA.rpcUrl", ...options });
const answering =
  (status: number, text: string): typeof globalThis.fetch =>
  async () =>
    new Response(text, { status });

async function failure(promise: Promise<unknown>): Promise<ServiceUnavailableError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof ServiceUnavailableError))
    throw new Error(`expected ServiceUnavailableError, got ${String(error)}`);
  return error;
}

describe("JsonRpcClient", () => {
  it("matches batch answers to requests by id, whatever their order", async () => {
    const fetch: typeof globalThis.fetch = async (_input, init) => {
      const requests: Array<{ id: number; params: unknown[] }> = JSON.parse(String(init?.body));
      const answers = requests.map((r) =>
        r.params[0] === 2
          ? { jsonrpc: "2.0", id: r.id, error: { code: -32007, message: "Slot 2 was skipped" } }
          : { jsonrpc: "2.0", id: r.id, result: `block ${r.params[0]}` },
      );
      return new Response(JSON.stringify(answers.reverse()));
    };
    const client = solana({ fetch });
    await expect(client.batch([1, 2, 3].map((slot) => ({ method: "getBlock", params: [slot] })))).resolves.toEqual([
      { ok: true, result: "block 1" },
      { ok: false, code: -32007, message: "Slot 2 was skipped" },
      { ok: true, result: "block 3" },
    ]);
  });

  it("sends a lone request as a plain call, not a batch", async () => {
    let body = "";
    const fetch: typeof globalThis.fetch = async (_input, init) => {
      body = String(init?.body);
      return new Response(JSON.stringify({ jsonrpc: "2.0", id: JSON.parse(body).id, result: 7 }));
    };
    await expect(solana({ fetch }).call("getSlot", [])).resolves.toBe(7);
    expect(JSON.parse(body)).toMatchObject({ jsonrpc: "2.0", method: "getSlot", params: [] });
  });

  it("turns transport, HTTP and protocol failures into retryable errors without the URL", async () => {
    const echoId =
      (error: { code: number; message: string }): typeof globalThis.fetch =>
      async (_input, init) =>
        new Response(JSON.stringify({ jsonrpc: "2.0", id: JSON.parse(String(init?.body)).id, error }));
    const cases: Array<[typeof globalThis.fetch, RegExp]> = [
      [
        async () => {
          throw new TypeError("fetch failed");
        },
        /getSlot: node unreachable/,
      ],
      [answering(429, '{"error":"rate limited"}'), /HTTP 429/],
      [answering(200, "<html>gateway</html>"), /not JSON/],
      [answering(200, '{"jsonrpc":"2.0","result":1}'), /malformed/],
      [echoId({ code: -32005, message: "Node is unhealthy" }), /getSlot failed: -32005 Node is unhealthy/],
    ];
    for (const [fetch, message] of cases) {
      const error = await failure(solana({ fetch }).call("getSlot", []));
      expect(error.message).toMatch(message);
      expect(error.retryable).toBe(true);
      expect(error.message).not.toContain("secret-123");
    }
  });

  it("reports a batch the provider refuses as a whole", async () => {
    const fetch = answering(
      200,
      '{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"batch requests are not allowed"}}',
    );
    const client = solana({ fetch });
    const error = await failure(
      client.batch([
        { method: "getBlock", params: [1] },
        { method: "getBlock", params: [2] },
      ]),
    );
    expect(error.message).toMatch(/-32600 batch requests are not allowed/);
  });

  it("gives up on a node that does not answer in time", async () => {
    const fetch: typeof globalThis.fetch = (_input, init) =>
      new Promise((_resolve, reject) => {
        init?.signal?.addEventListener("abort", () => reject(init.signal?.reason));
      });
    const client = solana({ fetch, timeoutMs: 20 });
    const error = await failure(client.call("getSlot", []));
    expect(error.message).toMatch(/unreachable/);
  });
});
