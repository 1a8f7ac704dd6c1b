import { ChainMovedError, resolveChainConfig } from "@mp/core";
import type { Database } from "@mp/db";
import type { StoredAttempt } from "@mp/treasury/ports";
import { describe, expect, it } from "vitest";
import { evmAttemptStatus } from "../src/send/evm-attempt-status.ts";
import { createEvmNode } from "../src/send/evm-node.ts";

const TX = `0x${"ab".repeat(32)}`;
const BLOCK = `0x${"cd".repeat(32)}`;
const receipt = { transactionHash: TX, blockHash: BLOCK, blockNumber: "0x2a", status: "0x1" };

/**
 * An EVM node over HTTP whose answers to eth_getTransactionReceipt come from `receipts` in turn and
 * whose eth_getTransactionByHash is `transaction`: the status is read through the sender's own client.
 */
function scriptedNode(receipts: unknown[], transaction: unknown) {
  const asked: string[] = [];
  const fetch = async (_url: unknown, init?: RequestInit) => {
    const { id, method } = JSON.parse(String(init?.body)) as { id: number; method: string };
    asked.push(method);
    const result = method === "eth_getTransactionReceipt" ? (receipts.shift() ?? null) : transaction;
    return new Response(JSON.stringify({ jsonrpc: "2.0", id, result }), {
      headers: { "content-type": "application/json" },
    });
  };
  const node = createEvmNode(resolveChainConfig("BASE", { rpcUrl: "http://node.invalid" }), {
    fetch: fetch as typeof globalThis.fetch,
  });
  return { node, asked };
}

const attempt = { txHash: TX, guard: { nonce: 7 }, from: "0x1", id: "a1" } as unknown as StoredAttempt;
// Only an attempt unknown to the node reads the database (its nonce's other attempts): none here does.
const db = {} as Database;

describe("an EVM attempt's status", () => {
  it("is pending while the node holds it outside any block", async () => {
    const { node } = scriptedNode([null], { hash: TX, blockHash: null, blockNumber: null });
    expect(await evmAttemptStatus(node, db, "BASE", attempt)).toEqual({ state: "pending" });
  });

  it("is mined, never pending, when it is in a block whose receipt came a moment late", async () => {
    const { node, asked } = scriptedNode([null, receipt], { hash: TX, blockHash: BLOCK, blockNumber: "0x2a" });
    expect(await evmAttemptStatus(node, db, "BASE", attempt)).toEqual({
      state: "mined",
      blockHeight: 42,
      blockHash: BLOCK,
    });
    expect(asked).toEqual(["eth_getTransactionReceipt", "eth_getTransactionByHash", "eth_getTransactionReceipt"]);
  });

  it("is not judged at all (a retryable error) while the node shows it in a block without a receipt", async () => {
    const { node } = scriptedNode([null, null], { hash: TX, blockHash: BLOCK, blockNumber: "0x2a" });
    await expect(evmAttemptStatus(node, db, "BASE", attempt)).rejects.toBeInstanceOf(ChainMovedError);
  });
});
