import {
  type ChainAdapter,
  type ChainConfig,
  ChainMisconfiguredError,
  resolveChainConfig,
  ServiceUnavailableError,
} from "@mp/core";
import {
  type BitcoinTestNode,
  deriveTestAddresses,
  opReturnScript,
  startBitcoinTestNode,
} from "@mp/test-nodes/bitcoin";
import { script } from "bitcoinjs-lib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createBitcoinAdapter, GENESIS_PARENT_HASH } from "../src/bitcoin-adapter.ts";
import { createBitcoinFaucet } from "../src/bitcoin-faucet.ts";

const REGTEST_GENESIS = "0f9188f13cb7b2c71f2a335e3a4fc328bf5beb436012afca590b1a11466e2206";

let node: BitcoinTestNode;
let config: ChainConfig;
let adapter: ChainAdapter;
const [alice, bob, carol, dave, erin] = deriveTestAddresses(5) as [string, string, string, string, string];
const watched = new Set([alice, bob, carol]);

beforeAll(async () => {
  node = await startBitcoinTestNode();
  config = resolveChainConfig("BITCOIN", { rpcUrl: node.url, network: "regtest", confirmations: 2 });
  // Small batches so multi-request paths run in these small tests.
  adapter = createBitcoinAdapter(config, { blocksPerRequest: 2, headersPerRequest: 3 });
});

afterAll(async () => {
  await node.stop();
});

describe("head and headers", () => {
  it("head is the node's height, immediately after mining", async () => {
    const before = await adapter.head();
    node.mine(2);
    expect(await adapter.head()).toBe(before + 2);
    expect(before).toBe(node.height - 2);
  });

  it("headers are ascending, linked, and start from the real regtest genesis", async () => {
    const headers = await adapter.headers({ from: 0, to: 7 });
    expect(headers.map((header) => header.height)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(headers[0]).toEqual({ height: 0, hash: REGTEST_GENESIS, parentHash: GENESIS_PARENT_HASH });
    for (let i = 1; i < headers.length; i++) expect(headers[i]?.parentHash).toBe(headers[i - 1]?.hash);
    expect(headers.map((header) => header.hash)).toEqual(headers.map((header) => node.blockHash(header.height)));
  });

  it("answers an inverted range as empty, like every adapter, and refuses a malformed one", async () => {
    await expect(adapter.headers({ from: 5, to: 4 })).resolves.toEqual([]);
    await expect(adapter.scan({ from: 5, to: 4 }, new Set())).resolves.toEqual([]);
    await expect(adapter.headers({ from: -1, to: 4 })).rejects.toThrow(/invalid block range/);
  });
});

describe("scan", () => {
  it("finds a transfer as soon as its block is mined (1 confirmation), not while in the mempool", async () => {
    const { txid } = node.send(alice, 123_456n);
    const height = node.height;
    expect(await adapter.scan({ from: height, to: height }, watched)).toEqual([]);
    const [hash] = node.mine(1);
    const transfers = await adapter.scan({ from: height + 1, to: height + 1 }, watched);
    expect(transfers).toEqual([
      {
        txHash: txid,
        position: "vout:0",
        blockHeight: height + 1,
        blockHash: hash,
        from: null,
        to: alice,
        asset: "BTC",
        contractAddress: null,
        amountRaw: 123_456n,
        decimals: 8,
      },
    ]);
  });

  it("ignores outputs to unwatched addresses", async () => {
    node.send(dave, 10_000n);
    node.mine(1);
    expect(await adapter.scan({ from: node.height, to: node.height }, watched)).toEqual([]);
  });

  it("one transaction paying several watched addresses gives one transfer per output", async () => {
    const { txid, vouts } = node.sendOutputs([
      { address: alice, amount: 1_000n },
      { address: dave, amount: 2_000n },
      { address: bob, amount: 3_000n },
      { address: carol, amount: 4_000n },
      { address: bob, amount: 5_000n },
    ]);
    node.mine(1);
    const transfers = await adapter.scan({ from: node.height, to: node.height }, watched);
    expect(transfers.map((t) => [t.txHash, t.position, t.to, t.amountRaw])).toEqual([
      [txid, `vout:${vouts[0]}`, alice, 1_000n],
      [txid, `vout:${vouts[2]}`, bob, 3_000n],
      [txid, `vout:${vouts[3]}`, carol, 4_000n],
      [txid, `vout:${vouts[4]}`, bob, 5_000n],
    ]);
  });

  it("ignores OP_RETURN and non-standard outputs (no address) in the same transaction", async () => {
    const nonStandard = script.compile([script.OPS.OP_TRUE, script.OPS.OP_DROP, script.OPS.OP_TRUE]);
    const { txid } = node.sendOutputs([
      { script: opReturnScript(Buffer.from("invoice 42")), amount: 0n },
      { script: nonStandard, amount: 7_000n },
      { address: carol, amount: 8_000n },
    ]);
    node.mine(1);
    const transfers = await adapter.scan({ from: node.height, to: node.height }, { has: () => true });
    // Every address matches here: only outputs that have one (carol's and the wallet's change) come back.
    const ofTx = transfers.filter((t) => t.txHash === txid);
    expect(ofTx.map((t) => t.position)).toEqual(["vout:2", "vout:3"]);
    expect(ofTx[0]).toMatchObject({ to: carol, amountRaw: 8_000n });
  });

  it("never reports coinbase outputs, even to a watched address", async () => {
    node.mine(1, alice);
    expect(await adapter.scan({ from: node.height, to: node.height }, watched)).toEqual([]);
  });

  it("handles empty blocks and spans several requests in ascending order", async () => {
    const from = node.height + 1;
    node.mine(2);
    const first = node.send(bob, 11_111n);
    node.mine(1);
    node.mine(2);
    const second = node.send(alice, 22_222n);
    node.mine(1);
    node.mine(1);
    const transfers = await adapter.scan({ from, to: node.height }, watched);
    expect(transfers.map((t) => [t.txHash, t.blockHeight])).toEqual([
      [first.txid, from + 2],
      [second.txid, from + 5],
    ]);
  });
});

describe("reorgs", () => {
  it("a reorg changes the hash at the same height and moves the transfer to the new block", async () => {
    const { txid } = node.send(carol, 31_337n);
    node.mine(1);
    const height = node.height;
    const [before] = await adapter.scan({ from: height, to: height }, watched);
    const oldHeaders = await adapter.headers({ from: height - 1, to: height });

    const { removed, added } = node.reorg(1);
    expect(removed).toEqual([before?.blockHash]);
    const newHeaders = await adapter.headers({ from: height - 1, to: height });
    expect(newHeaders[0]).toEqual(oldHeaders[0]);
    expect(newHeaders[1]?.hash).not.toBe(oldHeaders[1]?.hash);
    expect(newHeaders[1]?.hash).toBe(added[0]);
    expect(newHeaders[1]?.parentHash).toBe(oldHeaders[0]?.hash);

    const [after] = await adapter.scan({ from: height, to: height }, watched);
    expect(after).toEqual({ ...before, blockHash: added[0] });
    expect(after?.txHash).toBe(txid);
  });

  it("a dropped transaction disappears; one sent back to the mempool is no longer in a block", async () => {
    const kept = node.send(alice, 40_000n);
    const dropped = node.send(bob, 50_000n);
    node.mine(1);
    const pending = node.send(carol, 60_000n);
    node.mine(1);
    const from = node.height - 1;
    node.reorg(2, { drop: [dropped.txid], toMempool: [pending.txid] });
    const transfers = await adapter.scan({ from, to: node.height }, watched);
    expect(transfers.map((t) => t.txHash)).toEqual([kept.txid]);
    expect(node.mempool()).toContain(pending.txid);
    expect(node.mempool()).not.toContain(dropped.txid);
    node.mine(1);
    const later = await adapter.scan({ from: node.height, to: node.height }, watched);
    expect(later.map((t) => t.txHash)).toEqual([pending.txid]);
  });

  it("a moved transaction lands at another height of the new branch", async () => {
    const { txid } = node.send(alice, 70_000n);
    node.mine(1);
    const height = node.height;
    node.reorg(1, { blocks: 3, move: { [txid]: 2 } });
    const transfers = await adapter.scan({ from: height, to: node.height }, watched);
    expect(transfers.map((t) => [t.txHash, t.blockHeight])).toEqual([[txid, height + 2]]);
  });
});

describe("faucet", () => {
  it("sends real value through sendtoaddress + generatetoaddress and the deposit is found", async () => {
    const faucet = createBitcoinFaucet(config);
    expect(faucet.assets()).toEqual([{ asset: "BTC", address: null, decimals: 8 }]);
    const { txHash } = await faucet.send(erin, "BTC", 123_456_789n);
    const transfers = await adapter.scan({ from: node.height, to: node.height }, new Set([erin]));
    expect(transfers).toMatchObject([{ txHash, to: erin, amountRaw: 123_456_789n, position: "vout:0" }]);
  });

  it("rejects other assets, bad amounts and addresses of another network", async () => {
    const faucet = createBitcoinFaucet(config);
    await expect(faucet.send(erin, "USDC", 1n)).rejects.toMatchObject({ code: "validation_error" });
    await expect(faucet.send(erin, "BTC", 0n)).rejects.toMatchObject({ code: "validation_error" });
    const [mainnetAddress] = deriveTestAddresses(1, "mainnet");
    await expect(faucet.send(String(mainnetAddress), "BTC", 1_000n)).rejects.toMatchObject({
      code: "validation_error",
    });
  });
});

describe("failures", () => {
  it("an RPC outage throws a retryable error, and the adapter works again after a restart", async () => {
    await node.stop();
    const error = await adapter.head().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ServiceUnavailableError);
    expect(error).toMatchObject({ retryable: true, code: "service_unavailable" });
    await expect(adapter.scan({ from: 1, to: 2 }, watched)).rejects.toBeInstanceOf(ServiceUnavailableError);
    await node.restart();
    expect(await adapter.head()).toBe(node.height);
  });

  it("scanning past the tip is a retryable error, never a silently short answer", async () => {
    const error = await adapter.scan({ from: node.height, to: node.height + 1 }, watched).catch((e: unknown) => e);
    expect(error).toMatchObject({ retryable: true, rpcCode: -8 });
  });

  it("wrong credentials are a configuration error that does not leak the password", async () => {
    const url = new URL(node.url);
    url.password = "wrong-password";
    const bad = createBitcoinAdapter(resolveChainConfig("BITCOIN", { rpcUrl: url.toString(), network: "regtest" }));
    const error = await bad.head().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ChainMisconfiguredError);
    expect(error).toMatchObject({ retryable: false });
    expect(String((error as Error).message)).not.toContain("wrong-password");
    expect(String((error as Error).message)).not.toContain("mp-test-node");
  });

  it("refuses a node of another network than configured", async () => {
    const mainnetAdapter = createBitcoinAdapter(
      resolveChainConfig("BITCOIN", { rpcUrl: node.url, network: "mainnet" }),
    );
    await expect(mainnetAdapter.head()).rejects.toBeInstanceOf(ChainMisconfiguredError);
    await expect(mainnetAdapter.verifyNetwork()).rejects.toMatchObject({
      code: "chain_misconfigured",
      details: { network: "mainnet", chain: "regtest" },
    });
    await expect(adapter.verifyNetwork()).resolves.toBeUndefined();
  });
});
