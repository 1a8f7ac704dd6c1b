import { readFileSync } from "node:fs";
import { type ChainConfig, resolveChainConfig } from "@mp/core";
import {
  type AnvilNode,
  deployTestToken,
  minedTransaction,
  sendFromUnlocked,
  startAnvil,
  type TestToken,
  testTokenAbi,
  transferToken,
} from "@mp/test-nodes/evm";
import { encodeFunctionData, getAddress, type Hex, hexToBytes } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { createEvmAdapter, EvmRpcError } from "../src/index.ts";
import { bloomBits, bloomMayContain, logFilterBloom } from "../src/logs-bloom.ts";
import { TRANSFER_TOPIC } from "../src/transfer-logs.ts";

/**
 * Issue 10 item 7: a backend whose log index lags answers eth_getLogs with [] for a block that has
 * transfers. Real anvil behind a fetch that plays such a backend.
 */

const PAYEE = "0x00000000000000000000000000000000000a11ce";

describe("logsBloom", () => {
  const receipt = z
    .object({
      result: z.object({
        logsBloom: z.string(),
        logs: z.array(z.object({ address: z.string(), topics: z.array(z.string()) })),
      }),
    })
    .parse(
      JSON.parse(
        readFileSync(new URL("./fixtures/eth_getTransactionReceipt.mainnet-0xab059a62.json", import.meta.url), "utf8"),
      ),
    ).result;

  it("reproduces a mainnet receipt's logsBloom bit for bit from its log's address and topics", () => {
    const bloom = new Uint8Array(256);
    for (const log of receipt.logs) {
      for (const value of [log.address, ...log.topics]) {
        for (const [byteIndex, mask] of bloomBits(value as Hex)) bloom[byteIndex] = (bloom[byteIndex] ?? 0) | mask;
      }
    }
    expect(bloom).toEqual(hexToBytes(receipt.logsBloom as Hex));
  });

  it("says a block may hold a token's Transfer only when both the contract and the topic are in it", () => {
    const token = "0xb59f67a8bff5d8cd03f6ac17265c550ed8f33907";
    const bloom = hexToBytes(receipt.logsBloom as Hex);
    expect(bloomMayContain(bloom, bloomBits(TRANSFER_TOPIC))).toBe(true);
    expect(logFilterBloom([token], TRANSFER_TOPIC)(receipt.logsBloom)).toBe(true);
    // USDC (mainnet) emitted nothing in this receipt: its bits are not all set.
    expect(logFilterBloom(["0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48"], TRANSFER_TOPIC)(receipt.logsBloom)).toBe(
      false,
    );
    expect(logFilterBloom([token], `0x${"11".repeat(32)}`)(receipt.logsBloom)).toBe(false);
    expect(logFilterBloom([token], TRANSFER_TOPIC)(`0x${"00".repeat(256)}`)).toBe(false);
    expect(logFilterBloom([], TRANSFER_TOPIC)(receipt.logsBloom)).toBe(false);
    // No bloom (non-standard node): nothing to check against, eth_getLogs is taken as it is.
    expect(logFilterBloom([token], TRANSFER_TOPIC)(undefined)).toBe(false);
  });
});

let node: AnvilNode;
let usdc: TestToken;
/** A token that is not configured. */
let other: TestToken;

beforeAll(async () => {
  node = await startAnvil();
  usdc = await deployTestToken(node, { name: "USD Coin", symbol: "USDC", decimals: 6 });
  other = await deployTestToken(node, { name: "Other", symbol: "OTH", decimals: 18 });
});

afterAll(async () => {
  await node?.stop();
});

const config = (): ChainConfig =>
  resolveChainConfig("BASE", {
    rpcUrl: node.url,
    tokens: [{ asset: "USDC", address: usdc.address, decimals: 6 }],
  });

const rpcRequest = z.object({ id: z.number(), method: z.string(), params: z.array(z.unknown()) });
const byHash = z.object({ blockHash: z.string() });

/**
 * Forwards to anvil, but answers `[]` to the first `emptyRangeAnswers` eth_getLogs over a block
 * range and to the first `emptyHashAnswers` by block hash (a log index behind its blocks);
 * `receipts: false` plays a node without eth_getBlockReceipts. Counts what was asked.
 */
function laggingLogIndex(options: { emptyRangeAnswers: number; emptyHashAnswers: number; receipts?: boolean }) {
  const asked = { range: 0, byHash: 0, receipts: 0 };
  /** eth_getBlockReceipts calls per HTTP request. */
  const receiptBatches: number[] = [];
  const fetchImpl: typeof fetch = async (input, init) => {
    const parsed: unknown = JSON.parse(String(init?.body));
    const requests = z.array(rpcRequest).parse([parsed].flat());
    const receipts = requests.filter((r) => r.method === "eth_getBlockReceipts").length;
    if (receipts > 0) receiptBatches.push(receipts);
    const answers: unknown[] = [];
    let forward = false;
    for (const request of requests) {
      if (request.method === "eth_getBlockReceipts") {
        asked.receipts++;
        if (options.receipts === false) {
          answers.push({ jsonrpc: "2.0", id: request.id, error: { code: -32601, message: "method not found" } });
          continue;
        }
      }
      if (request.method === "eth_getLogs") {
        const hash = byHash.safeParse(request.params[0]).success;
        const count = hash ? ++asked.byHash : ++asked.range;
        if (count <= (hash ? options.emptyHashAnswers : options.emptyRangeAnswers)) {
          answers.push({ jsonrpc: "2.0", id: request.id, result: [] });
          continue;
        }
      }
      forward = true;
    }
    if (forward) return fetch(input, init);
    return Response.json(Array.isArray(parsed) ? answers : answers[0]);
  };
  return { fetchImpl, asked, receiptBatches };
}

/**
 * Mines one block holding a USDC Approval (USDC's address in the bloom) and another token's
 * Transfer (the Transfer topic in the bloom), but no USDC Transfer: a bloom false positive.
 */
async function falsePositiveBlock(): Promise<void> {
  const holder = node.accounts[0];
  if (!holder) throw new Error("no dev account");
  await node.setAutomine(false);
  try {
    const hashes = [
      await sendFromUnlocked(node, {
        from: holder.address,
        to: usdc.address,
        data: encodeFunctionData({ abi: testTokenAbi, functionName: "approve", args: [getAddress(PAYEE), 5n] }),
        gas: 100_000n,
      }),
      await sendFromUnlocked(node, {
        from: holder.address,
        to: other.address,
        data: encodeFunctionData({ abi: testTokenAbi, functionName: "transfer", args: [getAddress(PAYEE), 5n] }),
        gas: 100_000n,
      }),
    ];
    await node.mine(1);
    for (const hash of hashes) await minedTransaction(node, hash);
  } finally {
    await node.setAutomine(true);
  }
}

/** Blocks mined by `act`. */
async function minedBy(act: () => Promise<unknown>): Promise<{ from: number; to: number }> {
  const from = (await node.blockNumber()) + 1;
  await act();
  return { from, to: await node.blockNumber() };
}

describe("eth_getLogs completeness", () => {
  it("finds a transfer eth_getLogs left out once: the block's bloom and receipts hold it", async () => {
    let paid: { txHash: string } | undefined;
    const range = await minedBy(async () => {
      paid = await transferToken(node, usdc, PAYEE, 12_500_000n);
      await node.mine(2);
    });
    const { fetchImpl, asked } = laggingLogIndex({ emptyRangeAnswers: 1, emptyHashAnswers: 0 });
    const found = await createEvmAdapter(config(), { fetch: fetchImpl }).scan(range, new Set([PAYEE]));
    expect(found.map((t) => [t.txHash, t.position, t.to, t.amountRaw])).toEqual([
      [paid?.txHash, "log:0", getAddress(PAYEE), 12_500_000n],
    ]);
    expect(asked).toEqual({ range: 1, byHash: 1, receipts: 1 });
  });

  it("retries a bounded number of times, then fails retryably instead of skipping the block", async () => {
    const range = await minedBy(() => transferToken(node, usdc, PAYEE, 1n));
    const { fetchImpl, asked } = laggingLogIndex({ emptyRangeAnswers: 1, emptyHashAnswers: 100 });
    const adapter = createEvmAdapter(config(), { fetch: fetchImpl, logRecheckAttempts: 3, logRecheckDelayMs: 1 });
    const error = await adapter.scan(range, new Set([PAYEE])).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(EvmRpcError);
    expect(error).toMatchObject({ retryable: true, failure: { reason: "logs-incomplete", method: "eth_getLogs" } });
    expect(asked.byHash).toBe(3);
    // Once the index has caught up, the same adapter finds the transfer.
    expect(await createEvmAdapter(config()).scan(range, new Set([PAYEE]))).toHaveLength(1);
  });

  it("accepts a bloom false positive after one receipts check: no retry, no loop", async () => {
    const range = await minedBy(() => falsePositiveBlock());
    expect(range.to).toBe(range.from);
    const block = await node.publicClient.getBlock({ blockNumber: BigInt(range.from) });
    expect(logFilterBloom([usdc.address.toLowerCase()], TRANSFER_TOPIC)(block.logsBloom ?? undefined)).toBe(true);

    const { fetchImpl, asked } = laggingLogIndex({ emptyRangeAnswers: 0, emptyHashAnswers: 0 });
    const found = await createEvmAdapter(config(), { fetch: fetchImpl }).scan(range, new Set([PAYEE]));
    expect(found).toEqual([]);
    expect(asked).toEqual({ range: 1, byHash: 0, receipts: 1 });

    // Without eth_getBlockReceipts, the block is accepted after `attempts` consistent empty answers.
    const noReceipts = laggingLogIndex({ emptyRangeAnswers: 0, emptyHashAnswers: 0, receipts: false });
    const adapter = createEvmAdapter(config(), { fetch: noReceipts.fetchImpl, logRecheckDelayMs: 1 });
    expect(await adapter.scan(range, new Set([PAYEE]))).toEqual([]);
    expect(noReceipts.asked).toEqual({ range: 1, byHash: 3, receipts: 1 });
  });

  it("fetches the receipts of many silent blocks blocksPerRequest at a time (a busy block's are ~1 MB)", async () => {
    const range = await minedBy(async () => {
      for (let i = 0; i < 5; i++) await falsePositiveBlock();
    });
    const { fetchImpl, asked, receiptBatches } = laggingLogIndex({ emptyRangeAnswers: 0, emptyHashAnswers: 0 });
    const adapter = createEvmAdapter(config(), { fetch: fetchImpl, blocksPerRequest: 2 });
    expect(await adapter.scan(range, new Set([PAYEE]))).toEqual([]);
    expect(asked.receipts).toBe(5);
    expect(receiptBatches).toEqual([2, 2, 1]);
  });

  it("does not recheck blocks whose bloom rules the tokens out", async () => {
    const range = await minedBy(async () => {
      await node.mine(3);
    });
    const { fetchImpl, asked } = laggingLogIndex({ emptyRangeAnswers: 0, emptyHashAnswers: 0 });
    expect(await createEvmAdapter(config(), { fetch: fetchImpl }).scan(range, new Set([PAYEE]))).toEqual([]);
    expect(asked).toEqual({ range: 1, byHash: 0, receipts: 0 });
  });
});
