import {
  type ChainConfig,
  ChainMisconfiguredError,
  ChainMovedError,
  resolveChainConfig,
  ServiceUnavailableError,
} from "@mp/core";
import {
  type AnvilNode,
  deployTestToken,
  seedTransfers,
  startAnvil,
  type TestToken,
  testTokenAbi,
  transferToken,
} from "@mp/test-nodes/evm";
import { encodeFunctionData, getAddress } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { createEvmAdapter, EvmRpcError } from "../src/index.ts";

/** Provider limits and outages, against real anvil behind a fetch that plays the provider. */

const WATCHED = ["0x00000000000000000000000000000000000a11ce", "0x0000000000000000000000000000000000000b0b"];

let node: AnvilNode;
let usdc: TestToken;
let seeded: { fromBlock: number; toBlock: number; watchedTransfers: number };

beforeAll(async () => {
  node = await startAnvil();
  usdc = await deployTestToken(node, { name: "USD Coin", symbol: "USDC", decimals: 6 });
  seeded = await seedTransfers(node, usdc, { transfers: 400, blocks: 40, recipients: WATCHED });
});

afterAll(async () => {
  await node?.stop();
});

const config = (overrides: Partial<Parameters<typeof resolveChainConfig>[1]> = {}): ChainConfig =>
  resolveChainConfig("OPTIMISM", {
    rpcUrl: node.url,
    tokens: [{ asset: "USDC", address: usdc.address, decimals: 6 }],
    ...overrides,
  });

const jsonRpcRequests = z.array(z.object({ id: z.number(), method: z.string(), params: z.array(z.unknown()) }));
const logFilter = z.object({ fromBlock: z.string(), toBlock: z.string() });

/** Forwards to anvil, but refuses eth_getLogs spanning more than `limit` blocks, as providers do. */
function limitingFetch(limit: number, refusal: { code: number; message: string }) {
  const spans: { from: number; to: number; refused: boolean }[] = [];
  const fetchImpl: typeof fetch = async (input, init) => {
    const parsed: unknown = JSON.parse(String(init?.body));
    const [request] = jsonRpcRequests.parse([parsed].flat());
    if (!Array.isArray(parsed) && request?.method === "eth_getLogs") {
      const filter = logFilter.parse(request.params[0]);
      const from = Number(filter.fromBlock);
      const to = Number(filter.toBlock);
      const refused = to - from + 1 > limit;
      spans.push({ from, to, refused });
      if (refused) {
        return Response.json({ jsonrpc: "2.0", id: request.id, error: refusal });
      }
    }
    return fetch(input, init);
  };
  return { fetchImpl, spans };
}

describe("adaptive eth_getLogs range", () => {
  it("shrinks on 'block range too large', still covers every block once, and finds every transfer", async () => {
    const reference = await createEvmAdapter(config()).scan(
      { from: seeded.fromBlock, to: seeded.toBlock },
      new Set(WATCHED),
    );
    expect(reference).toHaveLength(seeded.watchedTransfers);

    const { fetchImpl, spans } = limitingFetch(7, { code: -32600, message: "block range too large: max 7 blocks" });
    const adapter = createEvmAdapter(config({ batchSize: 40 }), { fetch: fetchImpl });
    const found = await adapter.scan({ from: seeded.fromBlock, to: seeded.toBlock }, new Set(WATCHED));

    expect(found).toEqual(reference);
    expect(spans[0]).toEqual({ from: seeded.fromBlock, to: seeded.toBlock, refused: true });
    const accepted = spans.filter((s) => !s.refused);
    expect(accepted.every((s) => s.to - s.from + 1 <= 7)).toBe(true);
    // Contiguous, non-overlapping, from the first block to the last.
    expect(accepted[0]?.from).toBe(seeded.fromBlock);
    for (let i = 1; i < accepted.length; i++) expect(accepted[i]?.from).toBe((accepted[i - 1]?.to ?? 0) + 1);
    expect(accepted.at(-1)?.to).toBe(seeded.toBlock);
  });

  it("shrinks on Infura's -32005 'query returned more than 10000 results'", async () => {
    const { fetchImpl, spans } = limitingFetch(3, { code: -32005, message: "query returned more than 10000 results" });
    const adapter = createEvmAdapter(config({ batchSize: 40 }), { fetch: fetchImpl });
    const found = await adapter.scan({ from: seeded.fromBlock, to: seeded.toBlock }, new Set(WATCHED));
    expect(found).toHaveLength(seeded.watchedTransfers);
    expect(spans.filter((s) => !s.refused).every((s) => s.to - s.from + 1 <= 3)).toBe(true);
  });

  it("shrinks when the answer exceeds the response size it accepts", async () => {
    const adapter = createEvmAdapter(config({ batchSize: 40 }), { maxResponseBytes: 64 * 1024 });
    const found = await adapter.scan({ from: seeded.fromBlock, to: seeded.toBlock }, new Set(WATCHED));
    expect(found).toHaveLength(seeded.watchedTransfers);
  });

  it("fails retryably when even a single block is refused", async () => {
    const { fetchImpl } = limitingFetch(0, { code: -32005, message: "limit exceeded" });
    const adapter = createEvmAdapter(config({ batchSize: 8 }), { fetch: fetchImpl });
    const error = await adapter.scan({ from: seeded.fromBlock, to: seeded.toBlock }, new Set(WATCHED)).catch((e) => e);
    expect(error).toBeInstanceOf(EvmRpcError);
    expect(error).toMatchObject({ retryable: true, failure: { rpcCode: -32005 } });
  });

  it("does not shrink on errors that are not about the range", async () => {
    const { fetchImpl, spans } = limitingFetch(1, { code: -32601, message: "the method eth_getLogs does not exist" });
    const adapter = createEvmAdapter(config({ batchSize: 40 }), { fetch: fetchImpl });
    await expect(adapter.scan({ from: seeded.fromBlock, to: seeded.toBlock }, new Set(WATCHED))).rejects.toBeInstanceOf(
      ServiceUnavailableError,
    );
    expect(spans).toHaveLength(1);
  });
});

describe("batching and consistency", () => {
  it("fetches headers as JSON-RPC batches of headersPerRequest", async () => {
    const bodies: number[] = [];
    const counting: typeof fetch = async (input, init) => {
      const parsed: unknown = JSON.parse(String(init?.body));
      bodies.push(Array.isArray(parsed) ? parsed.length : 1);
      return fetch(input, init);
    };
    const adapter = createEvmAdapter(config(), { fetch: counting, headersPerRequest: 16 });
    const headers = await adapter.headers({ from: seeded.fromBlock, to: seeded.toBlock });
    expect(headers.map((h) => h.height)).toEqual(
      Array.from({ length: seeded.toBlock - seeded.fromBlock + 1 }, (_, i) => seeded.fromBlock + i),
    );
    expect(bodies).toEqual([16, 16, 8]);
  });

  it("fails retryably instead of mixing forks when the chain reorganises between reading blocks and logs", async () => {
    const payee = "0x000000000000000000000000000000000000c0de";
    const from = (await node.blockNumber()) + 1;
    await transferToken(node, usdc, payee, 77n);
    await node.mine(2);
    const to = await node.blockNumber();
    let blocksAnswered!: () => void;
    const blocksRead = new Promise<void>((resolve) => {
      blocksAnswered = resolve;
    });
    const reorgBeforeLogs: typeof fetch = async (input, init) => {
      const parsed: unknown = JSON.parse(String(init?.body));
      const [request] = jsonRpcRequests.parse([parsed].flat());
      if (request?.method === "eth_getLogs") {
        await blocksRead;
        // The same payment, re-included one block later on the new branch.
        const holder = node.accounts[0];
        if (!holder) throw new Error("no dev account");
        const data = encodeFunctionData({
          abi: testTokenAbi,
          functionName: "transfer",
          args: [getAddress(payee), 77n],
        });
        await node.reorg(3, [
          { transaction: { from: holder.address, to: usdc.address, data, gas: "0x30d40" }, blockOffset: 1 },
        ]);
      }
      const response = await fetch(input, init);
      if (request?.method === "eth_getBlockByNumber") blocksAnswered();
      return response;
    };
    const adapter = createEvmAdapter(config(), { fetch: reorgBeforeLogs });
    const error = await adapter.scan({ from, to }, new Set([payee])).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ChainMovedError);
    expect(error).toMatchObject({ retryable: true, code: "service_unavailable" });
    // Retried on the settled chain, the payment is found once, in its new block.
    const found = await createEvmAdapter(config()).scan({ from, to }, new Set([payee]));
    expect(found.map((t) => [t.blockHeight, t.amountRaw])).toEqual([[from + 1, 77n]]);
  });
});

describe("credentials refused", () => {
  it("HTTP 401/403 from the provider is ChainMisconfiguredError (not retried), without the key", async () => {
    for (const status of [401, 403]) {
      const refusing: typeof globalThis.fetch = async () =>
        new Response('{"error":"invalid api key super-secret-key"}', { status });
      const adapter = createEvmAdapter(resolveChainConfig("BASE", { rpcUrl: `${node.url}/v2/super-secret-key` }), {
        fetch: refusing,
      });
      for (const call of [() => adapter.head(), () => adapter.scan({ from: 1, to: 2 }, new Set(WATCHED))]) {
        const error = await call().catch((e: unknown) => e);
        expect(error).toBeInstanceOf(ChainMisconfiguredError);
        expect(error).toMatchObject({ code: "chain_misconfigured", retryable: false });
        expect((error as Error).message).toContain("CHAINS_CONFIG.BASE.rpcUrl");
        expect(JSON.stringify({ error, message: String(error) })).not.toContain("super-secret-key");
      }
    }
  });
});

describe("RPC outage", () => {
  it("throws a retryable error without the RPC URL when anvil is killed, and works again once it is back", async () => {
    const outage = await startAnvil();
    const url = `${outage.url}/?apikey=super-secret-key`;
    const adapter = createEvmAdapter(resolveChainConfig("POLYGON", { rpcUrl: url }));
    await outage.mine(3);
    expect(await adapter.head()).toBe(3);

    await outage.stop();
    for (const call of [
      () => adapter.head(),
      () => adapter.headers({ from: 0, to: 2 }),
      () => adapter.scan({ from: 0, to: 2 }, new Set()),
    ]) {
      const error = await call().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ServiceUnavailableError);
      expect(error).toMatchObject({ code: "service_unavailable", retryable: true });
      const cause = error instanceof Error ? String(error.cause) : "";
      const text = JSON.stringify({ error, message: String(error), cause });
      expect(text).not.toContain("super-secret-key");
      expect(text).not.toContain(String(outage.port));
    }

    const restarted = await startAnvil({ port: outage.port });
    try {
      await restarted.mine(2);
      expect(await adapter.head()).toBe(2);
      expect(await adapter.headers({ from: 1, to: 2 })).toHaveLength(2);
    } finally {
      await restarted.stop();
    }
  });
});
