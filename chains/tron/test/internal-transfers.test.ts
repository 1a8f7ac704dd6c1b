import { type ChainAdapter, resolveChainConfig } from "@mp/core";
import { quoteInexactNumbers } from "@mp/rpc";
import { startTronTestNode, TronKey, type TronTestNode } from "@mp/test-nodes/tron";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTronAdapter } from "../src/index.ts";

/**
 * Issue 10 item 9: TRX a contract pays inside a call (internal transactions), as an exchange's or
 * a multisig's hot wallet contract pays out. The test node's forwarder contract makes them and its
 * gettransactioninfobyblocknum reports them as java-tron does.
 */

const TRX = 1_000_000n;
let walletCount = 0;
const wallet = () => TronKey.fromLabel(`internal-test-wallet:${walletCount++}`).address;

let node: TronTestNode;
let adapter: ChainAdapter;

beforeAll(async () => {
  node = await startTronTestNode({ seed: "internal-transfers-test" });
  adapter = createTronAdapter(
    resolveChainConfig("TRON", { rpcUrl: node.url, tokens: [...node.tokens], network: "regtest" }),
  );
});
afterAll(async () => {
  await node.stop();
});

async function mineAndScan(watch: ReadonlySet<string>) {
  const [height] = node.mine();
  if (height === undefined) throw new Error("no block mined");
  return { height, transfers: await adapter.scan({ from: height, to: height }, watch) };
}

describe("TRX paid inside a contract call", () => {
  it("is found at internal:<index>, from the contract, and the same at every rescan", async () => {
    const alice = wallet();
    const stranger = wallet();
    const txID = node.forwardTrx([
      { to: stranger, amount: 1n * TRX },
      { to: alice, amount: 7n * TRX },
    ]);
    const { height, transfers } = await mineAndScan(new Set([alice]));
    expect(node.balance(alice)).toBe(7n * TRX);
    expect(transfers).toEqual([
      {
        txHash: txID,
        position: "internal:1",
        blockHeight: height,
        blockHash: node.blockId(height),
        from: node.forwarderAddress,
        to: alice,
        asset: "TRX",
        contractAddress: null,
        amountRaw: 7n * TRX,
        decimals: 6,
      },
    ]);
    expect(await adapter.scan({ from: height, to: height }, new Set([alice]))).toEqual(transfers);
  });

  it("credits each watched recipient of one call once", async () => {
    const alice = wallet();
    const bob = wallet();
    node.forwardTrx([
      { to: alice, amount: 2n * TRX },
      { to: bob, amount: 3n * TRX },
      { to: alice, amount: 4n * TRX },
    ]);
    const { transfers } = await mineAndScan(new Set([alice, bob]));
    expect(transfers.map((t) => [t.position, t.to, t.amountRaw])).toEqual([
      ["internal:0", alice, 2n * TRX],
      ["internal:1", bob, 3n * TRX],
      ["internal:2", alice, 4n * TRX],
    ]);
  });

  it("never credits a rejected inner call, nor any inner call of a reverted transaction", async () => {
    const alice = wallet();
    const bob = wallet();
    node.forwardTrx([
      { to: alice, amount: 5n * TRX, rejected: true },
      { to: bob, amount: 1n * TRX },
    ]);
    const reverted = node.forwardTrx([{ to: alice, amount: 9n * TRX }], { revert: true });
    const { transfers } = await mineAndScan(new Set([alice, bob]));
    expect(node.transaction(reverted)?.failed).toBe(true);
    expect(node.balance(alice)).toBe(0n);
    expect(transfers.map((t) => [t.position, t.to, t.amountRaw])).toEqual([["internal:1", bob, 1n * TRX]]);
  });

  it("does not count the call's own value: paying the contract is not a deposit to anyone watched", async () => {
    const alice = wallet();
    const { transfers } = await (async () => {
      node.forwardTrx([{ to: alice, amount: 1n * TRX }]);
      return mineAndScan(new Set([alice, node.forwarderAddress]));
    })();
    // The forwarder received the call value at top level (a TriggerSmartContract, not a TRX
    // TransferContract) and paid alice inside: only alice's internal payment is a transfer.
    expect(transfers.map((t) => [t.position, t.to])).toEqual([["internal:0", alice]]);
  });
});

describe("exact callValue", () => {
  it("keeps every digit of a callValue beyond 2^53", () => {
    // The shared transport's parser (every client's), as the Tron client reads answers.
    const parsed = JSON.parse(
      quoteInexactNumbers('{"callValueInfo":[{"callValue":9007199254740993}],"amount": 12345678901234567}'),
    );
    expect(parsed).toEqual({ callValueInfo: [{ callValue: "9007199254740993" }], amount: "12345678901234567" });
  });
});
