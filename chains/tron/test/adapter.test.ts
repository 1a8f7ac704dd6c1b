import { type ChainAdapter, ChainMisconfiguredError, resolveChainConfig, ServiceUnavailableError } from "@mp/core";
import { startTronTestNode, TronKey, type TronTestNode } from "@mp/test-nodes/tron";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createTronAdapter, createTronFaucet, TronApiError } from "../src/index.ts";

const TRX = 1_000_000n;
let walletCount = 0;
const wallet = () => TronKey.fromLabel(`adapter-test-wallet:${walletCount++}`).address;

let node: TronTestNode;
let adapter: ChainAdapter;
let config: ReturnType<typeof resolveChainConfig>;

beforeAll(async () => {
  node = await startTronTestNode({ seed: "adapter-test" });
  config = resolveChainConfig("TRON", { rpcUrl: node.url, tokens: [...node.tokens], network: "regtest" });
  adapter = createTronAdapter(config);
});
afterAll(async () => {
  await node.stop();
});

async function mineAndScan(watch: ReadonlySet<string>) {
  const [height] = node.mine();
  if (height === undefined) throw new Error("no block mined");
  return { height, transfers: await adapter.scan({ from: height, to: height }, watch) };
}

describe("Tron adapter against the test node", () => {
  let alice: string;
  let bob: string;
  beforeEach(() => {
    alice = wallet();
    bob = wallet();
  });

  it("reports the newest block as head", async () => {
    node.mine(2);
    await expect(adapter.head()).resolves.toBe(node.head());
  });

  it("finds a TRX transfer to a watched address", async () => {
    const txID = node.transfer(alice, 3n * TRX);
    const { height, transfers } = await mineAndScan(new Set([alice]));
    expect(transfers).toEqual([
      {
        txHash: txID,
        position: "native",
        blockHeight: height,
        blockHash: node.blockId(height),
        from: node.faucetAddress,
        to: alice,
        asset: "TRX",
        contractAddress: null,
        amountRaw: 3n * TRX,
        decimals: 6,
      },
    ]);
    expect(txID).toMatch(/^[0-9a-f]{64}$/);
  });

  it("finds a USDT transfer from its Transfer log", async () => {
    const usdt = node.tokens[0];
    const txID = node.transferToken(alice, 12_500_000n);
    const { height, transfers } = await mineAndScan(new Set([alice]));
    expect(transfers).toEqual([
      {
        txHash: txID,
        position: "log:0",
        blockHeight: height,
        blockHash: node.blockId(height),
        from: node.faucetAddress,
        to: alice,
        asset: "USDT",
        contractAddress: usdt?.address,
        amountRaw: 12_500_000n,
        decimals: 6,
      },
    ]);
  });

  it("ignores transfers to unwatched addresses and tokens that are not configured", async () => {
    node.transfer(bob, TRX);
    node.transferToken(bob, 5n);
    const { height, transfers } = await mineAndScan(new Set([alice]));
    expect(transfers).toEqual([]);
    const noTokens = createTronAdapter(resolveChainConfig("TRON", { rpcUrl: node.url, network: "regtest" }));
    node.transferToken(alice, 5n);
    const [next] = node.mine();
    await expect(noTokens.scan({ from: height, to: next ?? height }, new Set([alice, bob]))).resolves.toMatchObject([
      { asset: "TRX", to: bob },
    ]);
  });

  it("never returns a reverted token transfer", async () => {
    const failed = node.failTransfer(alice, 7n);
    const ok = node.transferToken(alice, 8n);
    const { transfers } = await mineAndScan(new Set([alice]));
    expect(node.transaction(failed)).toMatchObject({ failed: true });
    expect(transfers.map((t) => [t.txHash, t.amountRaw])).toEqual([[ok, 8n]]);
    expect(node.tokenBalance(alice)).toBe(8n);
  });

  it("returns every transfer of a busy block, in block order", async () => {
    const carol = wallet();
    const sender = TronKey.fromLabel("adapter-test-sender");
    node.transfer(sender.address, 100n * TRX);
    node.transferToken(sender.address, 1_000n);
    node.mine();
    const ids = [
      node.transfer(alice, 1n),
      node.transferToken(carol, 2n),
      node.transfer(bob, 3n), // unwatched
      node.transfer(carol, 4n, { from: sender }),
      node.transferToken(alice, 5n, { from: sender }),
    ];
    const { transfers } = await mineAndScan(new Set([alice, carol]));
    expect(transfers.map((t) => [t.txHash, t.to, t.asset, t.amountRaw, t.from])).toEqual([
      [ids[0], alice, "TRX", 1n, node.faucetAddress],
      [ids[1], carol, "USDT", 2n, node.faucetAddress],
      [ids[3], carol, "TRX", 4n, sender.address],
      [ids[4], alice, "USDT", 5n, sender.address],
    ]);
  });

  it("scans a range of blocks, including empty ones", async () => {
    const first = node.transfer(alice, 1n);
    const [from] = node.mine(3);
    const last = node.transferToken(alice, 2n);
    const [to] = node.mine();
    const transfers = await adapter.scan({ from: from ?? 0, to: to ?? 0 }, new Set([alice]));
    expect(transfers.map((t) => [t.txHash, t.blockHeight])).toEqual([
      [first, from],
      [last, to],
    ]);
    await expect(adapter.scan({ from: 5, to: 4 }, new Set([alice]))).resolves.toEqual([]);
  });

  it("gives headers whose parentHash chains to the previous block, across request chunks", async () => {
    node.mine(30);
    const head = node.head();
    const chunked = createTronAdapter(config, { headersPerRequest: 7 });
    const headers = await chunked.headers({ from: 0, to: head });
    expect(headers).toHaveLength(head + 1);
    headers.forEach((header, i) => {
      expect(header.height).toBe(i);
      expect(header.hash).toBe(node.blockId(i));
      expect(header.hash.slice(0, 16)).toBe(i.toString(16).padStart(16, "0"));
      if (i > 0) expect(header.parentHash).toBe(headers[i - 1]?.hash);
    });
  });

  it("sees new hashes after a reorg, and a dropped transfer is gone", async () => {
    const kept = node.transfer(alice, 10n);
    const dropped = node.transferToken(alice, 11n);
    const [height] = node.mine();
    node.mine(2);
    const head = node.head();
    const before = await adapter.headers({ from: (height ?? 0) - 1, to: head });
    node.reorg(3, { drop: [dropped] });
    const after = await adapter.headers({ from: (height ?? 0) - 1, to: head });
    expect(after[0]).toEqual(before[0]); // below the fork
    for (let i = 1; i < after.length; i++) expect(after[i]?.hash).not.toBe(before[i]?.hash);
    expect(after[1]?.parentHash).toBe(after[0]?.hash);
    const transfers = await adapter.scan({ from: height ?? 0, to: head }, new Set([alice]));
    expect(transfers.map((t) => [t.txHash, t.blockHash])).toEqual([[kept, after[1]?.hash]]);
  });

  it("throws a retryable error for a block the node does not have", async () => {
    const head = node.head();
    const error = await adapter.scan({ from: head, to: head + 2 }, new Set([alice])).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TronApiError);
    expect(error).toBeInstanceOf(ServiceUnavailableError);
    await expect(adapter.headers({ from: head, to: head + 2 })).rejects.toBeInstanceOf(TronApiError);
  });

  it("throws while the node is down and recovers after it restarts", async () => {
    const txID = node.transfer(alice, 42n);
    const [height] = node.mine();
    await node.stop();
    try {
      await expect(adapter.head()).rejects.toBeInstanceOf(ServiceUnavailableError);
      await expect(adapter.scan({ from: height ?? 0, to: height ?? 0 }, new Set([alice]))).rejects.toMatchObject({
        retryable: true,
      });
    } finally {
      await node.restart();
    }
    const transfers = await adapter.scan({ from: height ?? 0, to: height ?? 0 }, new Set([alice]));
    expect(transfers.map((t) => t.txHash)).toEqual([txID]);
  });

  it("refuses a malformed range and a chain that is not Tron", async () => {
    await expect(adapter.scan({ from: -1, to: 2 }, new Set())).rejects.toMatchObject({ code: "validation_error" });
    // An inverted range is empty, as in every adapter.
    await expect(adapter.scan({ from: 5, to: 4 }, new Set())).resolves.toEqual([]);
    await expect(adapter.headers({ from: 5, to: 4 })).resolves.toEqual([]);
    expect(() => createTronAdapter(resolveChainConfig("SOLANA", { rpcUrl: node.url }))).toThrow(/not a Tron chain/);
  });
});

describe("Tron verifyNetwork", () => {
  it("accepts the test node as regtest and refuses it as mainnet or testnet, naming its block 0", async () => {
    await expect(adapter.verifyNetwork()).resolves.toBeUndefined();
    for (const network of ["mainnet", "testnet"] as const) {
      const wrong = createTronAdapter({ ...config, network });
      const error = await wrong.verifyNetwork().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ChainMisconfiguredError);
      expect(error).toMatchObject({ retryable: false, details: { network, genesisBlockId: node.blockId(0) } });
    }
  });

  it("accepts a node whose block 0 is the configured network's genesis", async () => {
    const withGenesis =
      (blockID: string): typeof globalThis.fetch =>
      async () =>
        new Response(JSON.stringify({ blockID, block_header: { raw_data: { parentHash: "00".repeat(32) } } }));
    const mainnetGenesis = "00000000000000001ebf88508a03865c71d452e25f4d51194196a1d22b6653dc";
    const nileGenesis = "0000000000000000d698d4192c56cb6be724a558448e2684802de4d6cd8690dc";
    const mainnet = { ...config, network: "mainnet" as const };
    const testnet = { ...config, network: "testnet" as const };
    await expect(createTronAdapter(mainnet, { fetch: withGenesis(mainnetGenesis) }).verifyNetwork()).resolves.toBe(
      undefined,
    );
    await expect(createTronAdapter(testnet, { fetch: withGenesis(nileGenesis) }).verifyNetwork()).resolves.toBe(
      undefined,
    );
    await expect(
      createTronAdapter(mainnet, { fetch: withGenesis(nileGenesis) }).verifyNetwork(),
    ).rejects.toBeInstanceOf(ChainMisconfiguredError);
  });
});

describe("Tron faucet on the test node", () => {
  it("sends TRX and USDT that the adapter then finds", async () => {
    const faucet = createTronFaucet(config);
    expect(faucet.assets()).toEqual([
      { asset: "TRX", address: null, decimals: 6 },
      { asset: "USDT", address: node.tokens[0]?.address, decimals: 6 },
    ]);
    const to = wallet();
    const trx = await faucet.send(to, "TRX", 2n * TRX);
    const usdt = await faucet.send(to, "USDT", 3_000_000n);
    const [height] = node.mine();
    const transfers = await adapter.scan({ from: height ?? 0, to: height ?? 0 }, new Set([to]));
    expect(transfers.map((t) => [t.txHash, t.asset, t.amountRaw])).toEqual([
      [trx.txHash, "TRX", 2n * TRX],
      [usdt.txHash, "USDT", 3_000_000n],
    ]);
    expect(node.balance(to)).toBe(2n * TRX);
  });

  it("refuses bad input without calling the node", async () => {
    const faucet = createTronFaucet(config);
    await expect(faucet.send("not-an-address", "TRX", 1n)).rejects.toMatchObject({ code: "validation_error" });
    await expect(faucet.send(wallet(), "TRX", 0n)).rejects.toMatchObject({ code: "validation_error" });
    await expect(faucet.send(wallet(), "DOGE", 1n)).rejects.toMatchObject({ code: "validation_error" });
  });

  it("reports an unreachable node as retryable", async () => {
    const faucet = createTronFaucet(resolveChainConfig("TRON", { rpcUrl: "http://127.0.0.1:1", network: "regtest" }));
    await expect(faucet.send(wallet(), "TRX", 1n)).rejects.toMatchObject({ retryable: true });
  });
});
