import { readFileSync } from "node:fs";
import { resolveChainConfig } from "@mp/core";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { resolveEvmAssets } from "../src/evm-assets.ts";
import { createEvmAdapter } from "../src/index.ts";
import { nativeTransferCandidates, receiptOutcome } from "../src/native-transfers.ts";
import { describeRpcFailure, isLogRangeRejection } from "../src/rpc-failure.ts";
import { fullBlockSchema, logsSchema, receiptSchema } from "../src/rpc-schemas.ts";
import { matchTransferLog } from "../src/transfer-logs.ts";

/** Recorded answers of real nodes (see fixtures/SOURCE.md), parsed by the adapter's own code. */

const envelope = z.object({ result: z.unknown() });
const fixture = (name: string): unknown =>
  envelope.parse(JSON.parse(readFileSync(new URL(`./fixtures/${name}`, import.meta.url), "utf8"))).result;

const MAINNET_TOKEN = "0xb59f67a8bff5d8cd03f6ac17265c550ed8f33907";
const MAINNET_RECIPIENT = "0x54a2d42a40f51259dedd1978f6c118a0f0eff078";

const ethereum = resolveEvmAssets(
  resolveChainConfig("ETHEREUM", {
    rpcUrl: "http://127.0.0.1:1",
    tokens: [{ asset: "TKN", address: MAINNET_TOKEN, decimals: 8 }],
  }),
);

describe("recorded mainnet eth_getLogs (ERC-20 Transfer)", () => {
  const logs = logsSchema.parse(fixture("eth_getLogs.mainnet-block-4365627.json"));

  it("yields the transfer to a watched recipient, checksummed, with its log position", () => {
    const [log] = logs;
    expect(log).toBeDefined();
    const match = log && matchTransferLog(log, ethereum, new Set([MAINNET_RECIPIENT]));
    expect(match?.transfer).toEqual({
      txHash: "0xab059a62e22e230fe0f56d8555340a29b2e9532360368f810595453f6fdd213b",
      position: "log:86",
      blockHeight: 4_365_627,
      blockHash: "0x8243343df08b9751f5ca0c5f8c9c0460d8a9b6351066fae0acbd4d3e776de8bb",
      from: "0x00b46c2526e227482e2EbB8f4C69E4674d262E75",
      to: "0x54a2d42a40F51259DedD1978F6c118a0f0Eff078",
      asset: "TKN",
      contractAddress: "0xb59f67A8BfF5d8Cd03f6AC17265c550Ed8F33907",
      amountRaw: 5_000_000_000n,
      decimals: 8,
    });
    expect(match?.transactionIndex).toBe(0xac);
  });

  it("ignores it when the recipient is not watched or the token is not configured", () => {
    const [log] = logs;
    if (!log) throw new Error("fixture has no log");
    expect(matchTransferLog(log, ethereum, new Set(["0x00b46c2526e227482e2ebb8f4c69e4674d262e75"]))).toBeNull();
    const noTokens = resolveEvmAssets(resolveChainConfig("ETHEREUM", { rpcUrl: "http://127.0.0.1:1" }));
    expect(matchTransferLog(log, noTokens, new Set([MAINNET_RECIPIENT]))).toBeNull();
  });

  it("ignores the same log once a reorg marks it removed", () => {
    const [log] = logs;
    if (!log) throw new Error("fixture has no log");
    expect(matchTransferLog({ ...log, removed: true }, ethereum, new Set([MAINNET_RECIPIENT]))).toBeNull();
  });
});

describe("recorded mainnet receipt (pre-Byzantium)", () => {
  const receipt = receiptSchema.parse(fixture("eth_getTransactionReceipt.mainnet-0xab059a62.json"));

  it("has no status, so it proves nothing about success", () => {
    expect(receipt.status).toBeNull();
    expect(receiptOutcome(receipt)).toBe("unknown");
    expect(receipt.blockNumber).toBe(4_365_627);
  });

  it("carries the same Transfer log as eth_getLogs returned", () => {
    const raw = z.object({ logs: z.unknown() }).parse(fixture("eth_getTransactionReceipt.mainnet-0xab059a62.json"));
    const [log] = logsSchema.parse(raw.logs);
    if (!log) throw new Error("fixture has no log");
    expect(matchTransferLog(log, ethereum, new Set([MAINNET_RECIPIENT]))?.transfer.amountRaw).toBe(5_000_000_000n);
  });
});

describe("recorded geth block with full transactions (execution-apis)", () => {
  const block = fullBlockSchema.parse(fixture("eth_getBlockByNumber-0x2-full.execution-apis.json"));
  const payee = "0x7dcd17433742f4c0ca53122ab541d0ba67fc27df";

  it("finds the two value transfers to the watched address and skips contract creations", () => {
    const base = resolveEvmAssets(resolveChainConfig("BASE", { rpcUrl: "http://127.0.0.1:1" }));
    const candidates = nativeTransferCandidates(block, base, new Set([payee]));
    expect(candidates.map((c) => [c.transfer.txHash, c.transactionIndex, c.transfer.amountRaw])).toEqual([
      ["0x847f7a3261988dc4a34be85f4c28d5d534d47775792e9d25e1d9250cb2fb77eb", 2, 2n],
      ["0xa0762610d794acddd2dca15fb7c437ada3611c886f3bea675d53d8da8a6c41b2", 3, 2n],
    ]);
    expect(candidates[0]?.transfer).toMatchObject({
      position: "native",
      blockHeight: 2,
      blockHash: "0xa111ce2477e1dd45173ba93cac819e62947e62a63a7d561b6f4825fb31c22645",
      from: "0x7435ed30A8b4AEb0877CEf0c6E8cFFe834eb865f",
      to: "0x7Dcd17433742F4c0Ca53122aB541D0Ba67fC27Df",
      asset: "ETH",
      contractAddress: null,
      decimals: 18,
    });
    expect(nativeTransferCandidates(block, base, new Set(["0x7435ed30a8b4aeb0877cef0c6e8cffe834eb865f"]))).toEqual([]);
  });

  it("uses the chain's own native asset", () => {
    const polygon = resolveEvmAssets(resolveChainConfig("POLYGON", { rpcUrl: "http://127.0.0.1:1" }));
    const [first] = nativeTransferCandidates(block, polygon, new Set([payee]));
    expect(first?.transfer.asset).toBe("POL");
  });

  it("confirms the type-1 transfer by its receipt (status 0x1, same block)", () => {
    const receipt = receiptSchema.parse(fixture("eth_getTransactionReceipt-0xa0762610.execution-apis.json"));
    expect(receiptOutcome(receipt)).toBe("success");
    expect(receipt.blockHash).toBe(block.hash);
  });
});

describe("recorded eth_getLogs refusals", () => {
  const cases = z
    .array(z.object({ provider: z.string(), httpStatus: z.number(), body: z.unknown() }))
    .parse(JSON.parse(readFileSync(new URL("./fixtures/eth_getLogs-range-errors.json", import.meta.url), "utf8")));

  it.each(cases.map((c) => [c.provider, c] as const))(
    "%s: recognised, and the scan shrinks its range",
    async (_, c) => {
      const TOKEN = "0x1111111111111111111111111111111111111111";
      const LIMIT = 4;
      const spans: number[] = [];
      // A node with empty blocks 0..15 that answers eth_getLogs over more than LIMIT blocks with the recorded refusal.
      const fakeFetch: typeof fetch = async (_input, init) => {
        const requests = z
          .array(z.object({ id: z.number(), method: z.string(), params: z.array(z.unknown()) }))
          .parse([JSON.parse(String(init?.body))].flat());
        const answers = requests.map((request) => {
          if (request.method === "eth_getLogs") {
            const filter = z.object({ fromBlock: z.string(), toBlock: z.string() }).parse(request.params[0]);
            const span = Number(filter.toBlock) - Number(filter.fromBlock) + 1;
            spans.push(span);
            if (span > LIMIT)
              return { status: c.httpStatus, body: { ...z.object({}).passthrough().parse(c.body), id: request.id } };
            return { status: 200, body: { jsonrpc: "2.0", id: request.id, result: [] } };
          }
          const height = Number(z.string().parse(request.params[0]));
          const hash = (n: number) => `0x${n.toString(16).padStart(64, "0")}`;
          const block = {
            number: `0x${height.toString(16)}`,
            hash: hash(height + 1),
            parentHash: hash(height),
            transactions: [],
          };
          return { status: 200, body: { jsonrpc: "2.0", id: request.id, result: block } };
        });
        const status = answers.find((a) => a.status !== 200)?.status ?? 200;
        const body = Array.isArray(JSON.parse(String(init?.body))) ? answers.map((a) => a.body) : answers[0]?.body;
        return new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });
      };
      const adapter = createEvmAdapter(
        resolveChainConfig("ARBITRUM", {
          rpcUrl: "http://rpc.invalid/v2/secret-key",
          batchSize: 16,
          tokens: [{ asset: "USDC", address: TOKEN, decimals: 6 }],
        }),
        { fetch: fakeFetch },
      );
      await expect(adapter.scan({ from: 0, to: 15 }, new Set())).resolves.toEqual([]);
      expect(spans[0]).toBe(16);
      expect(Math.max(...spans.slice(1))).toBeLessThanOrEqual(16);
      // Every block was covered by an accepted query, in order and without overlap.
      let covered = 0;
      for (const span of spans) if (span <= LIMIT) covered += span;
      expect(covered).toBe(16);
    },
  );

  it("tells a refusal from an outage", () => {
    const url = "https://mainnet.example/v3/abc123secret";
    expect(isLogRangeRejection(describeRpcFailure("eth_getLogs", new Error("boom"), url))).toBe(false);
  });
});
