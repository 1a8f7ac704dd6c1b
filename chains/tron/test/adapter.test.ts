import { ChainMisconfiguredError, type ObservedTransfer, resolveChainConfig, ServiceUnavailableError } from "@mp/core";
import { startTronTestNode, TronKey } from "@mp/test-nodes/tron";
import { describe, expect, it } from "vitest";
import { expectNetworkVerifiedByGenesis, useTestNodeAdapter } from "../../../test/support/test-node-adapter.ts";
import { createTronAdapter, createTronFaucet, TronApiError } from "../src/index.ts";

const TRX = 1_000_000n;
let walletCount = 0;
const wallet = () => TronKey.fromLabel(`adapter-test-wallet:${walletCount++}`).address;

const tron = useTestNodeAdapter({
  chain: "TRON",
  start: () => startTronTestNode({ seed: "adapter-test" }),
  createAdapter: (config) => createTronAdapter(config),
  newWallet: wallet,
});

describe("Tron adapter against the test node", () => {
  /** A 6-decimal transfer from the faucet to tron.alice, as the scan of block `height` reports it. */
  const faucetPayment = (
    txHash: string,
    height: number,
    transfer: Pick<ObservedTransfer, "position" | "asset" | "contractAddress" | "amountRaw">,
  ) => ({
    ...transfer,
    txHash,
    blockHeight: height,
    blockHash: tron.node.blockId(height),
    from: tron.node.faucetAddress,
    to: tron.alice,
    decimals: 6,
  });

  it("reports the newest block as head", async () => {
    await tron.expectHeadFollowsNode();
  });

  it("finds a TRX transfer to a watched address", async () => {
    const txID = tron.node.transfer(tron.alice, 3n * TRX);
    const { height, transfers } = await tron.mineAndScan(new Set([tron.alice]));
    const trx = { position: "native", asset: "TRX", contractAddress: null, amountRaw: 3n * TRX };
    expect(transfers).toEqual([faucetPayment(txID, height, trx)]);
    expect(txID).toMatch(/^[0-9a-f]{64}$/);
  });

  it("finds a USDT transfer from its Transfer log", async () => {
    const usdt = tron.node.tokens[0];
    const txID = tron.node.transferToken(tron.alice, 12_500_000n);
    const { height, transfers } = await tron.mineAndScan(new Set([tron.alice]));
    const token = { position: "log:0", asset: "USDT", contractAddress: usdt?.address ?? null, amountRaw: 12_500_000n };
    expect(transfers).toEqual([faucetPayment(txID, height, token)]);
  });

  it("ignores transfers to unwatched addresses and tokens that are not configured", async () => {
    tron.node.transfer(tron.bob, TRX);
    tron.node.transferToken(tron.bob, 5n);
    const { height, transfers } = await tron.mineAndScan(new Set([tron.alice]));
    expect(transfers).toEqual([]);
    const noTokens = createTronAdapter(resolveChainConfig("TRON", { rpcUrl: tron.node.url, network: "regtest" }));
    tron.node.transferToken(tron.alice, 5n);
    const [next] = tron.node.mine();
    await expect(
      noTokens.scan({ from: height, to: next ?? height }, new Set([tron.alice, tron.bob])),
    ).resolves.toMatchObject([{ asset: "TRX", to: tron.bob }]);
  });

  it("never returns a reverted token transfer", async () => {
    const failed = tron.node.failTransfer(tron.alice, 7n);
    const ok = tron.node.transferToken(tron.alice, 8n);
    const { transfers } = await tron.mineAndScan(new Set([tron.alice]));
    expect(tron.node.transaction(failed)).toMatchObject({ failed: true });
    expect(transfers.map((t) => [t.txHash, t.amountRaw])).toEqual([[ok, 8n]]);
    expect(tron.node.tokenBalance(tron.alice)).toBe(8n);
  });

  it("returns every transfer of a busy block, in block order", async () => {
    const carol = wallet();
    const sender = TronKey.fromLabel("adapter-test-sender");
    tron.node.transfer(sender.address, 100n * TRX);
    tron.node.transferToken(sender.address, 1_000n);
    tron.node.mine();
    const ids = [
      tron.node.transfer(tron.alice, 1n),
      tron.node.transferToken(carol, 2n),
      tron.node.transfer(tron.bob, 3n), // unwatched
      tron.node.transfer(carol, 4n, { from: sender }),
      tron.node.transferToken(tron.alice, 5n, { from: sender }),
    ];
    const { transfers } = await tron.mineAndScan(new Set([tron.alice, carol]));
    expect(transfers.map((t) => [t.txHash, t.to, t.asset, t.amountRaw, t.from])).toEqual([
      [ids[0], tron.alice, "TRX", 1n, tron.node.faucetAddress],
      [ids[1], carol, "USDT", 2n, tron.node.faucetAddress],
      [ids[3], carol, "TRX", 4n, sender.address],
      [ids[4], tron.alice, "USDT", 5n, sender.address],
    ]);
  });

  it("scans a range of blocks, including empty ones", async () => {
    const first = tron.node.transfer(tron.alice, 1n);
    const [from] = tron.node.mine(3);
    const last = tron.node.transferToken(tron.alice, 2n);
    const [to] = tron.node.mine();
    const transfers = await tron.adapter.scan({ from: from ?? 0, to: to ?? 0 }, new Set([tron.alice]));
    expect(transfers.map((t) => [t.txHash, t.blockHeight])).toEqual([
      [first, from],
      [last, to],
    ]);
    await expect(tron.adapter.scan({ from: 5, to: 4 }, new Set([tron.alice]))).resolves.toEqual([]);
  });

  it("gives headers whose parentHash chains to the previous block, across request chunks", async () => {
    tron.node.mine(30);
    const head = tron.node.head();
    const chunked = createTronAdapter(tron.config, { headersPerRequest: 7 });
    const headers = await chunked.headers({ from: 0, to: head });
    expect(headers).toHaveLength(head + 1);
    headers.forEach((header, i) => {
      expect(header.height).toBe(i);
      expect(header.hash).toBe(tron.node.blockId(i));
      expect(header.hash.slice(0, 16)).toBe(i.toString(16).padStart(16, "0"));
      if (i > 0) expect(header.parentHash).toBe(headers[i - 1]?.hash);
    });
  });

  it("sees new hashes after a reorg, and a dropped transfer is gone", async () => {
    const kept = tron.node.transfer(tron.alice, 10n);
    const dropped = tron.node.transferToken(tron.alice, 11n);
    const [height] = tron.node.mine();
    tron.node.mine(2);
    const head = tron.node.head();
    const before = await tron.adapter.headers({ from: (height ?? 0) - 1, to: head });
    tron.node.reorg(3, { drop: [dropped] });
    const after = await tron.adapter.headers({ from: (height ?? 0) - 1, to: head });
    expect(after[0]).toEqual(before[0]); // below the fork
    for (let i = 1; i < after.length; i++) expect(after[i]?.hash).not.toBe(before[i]?.hash);
    expect(after[1]?.parentHash).toBe(after[0]?.hash);
    const transfers = await tron.adapter.scan({ from: height ?? 0, to: head }, new Set([tron.alice]));
    expect(transfers.map((t) => [t.txHash, t.blockHash])).toEqual([[kept, after[1]?.hash]]);
  });

  it("throws a retryable error for a block the node does not have", async () => {
    const head = tron.node.head();
    const error = await tron.adapter.scan({ from: head, to: head + 2 }, new Set([tron.alice])).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TronApiError);
    expect(error).toBeInstanceOf(ServiceUnavailableError);
    await expect(tron.adapter.headers({ from: head, to: head + 2 })).rejects.toBeInstanceOf(TronApiError);
  });

  it("throws while the node is down and recovers after it restarts", async () => {
    const txID = tron.node.transfer(tron.alice, 42n);
    const [height] = tron.node.mine();
    await tron.node.stop();
    try {
      await expect(tron.adapter.head()).rejects.toBeInstanceOf(ServiceUnavailableError);
      await expect(
        tron.adapter.scan({ from: height ?? 0, to: height ?? 0 }, new Set([tron.alice])),
      ).rejects.toMatchObject({
        retryable: true,
      });
    } finally {
      await tron.node.restart();
    }
    const transfers = await tron.adapter.scan({ from: height ?? 0, to: height ?? 0 }, new Set([tron.alice]));
    expect(transfers.map((t) => t.txHash)).toEqual([txID]);
  });

  it("refuses a malformed range and a chain that is not Tron", async () => {
    await expect(tron.adapter.scan({ from: -1, to: 2 }, new Set())).rejects.toMatchObject({ code: "validation_error" });
    // An inverted range is empty, as in every tron.adapter.
    await expect(tron.adapter.scan({ from: 5, to: 4 }, new Set())).resolves.toEqual([]);
    await expect(tron.adapter.headers({ from: 5, to: 4 })).resolves.toEqual([]);
    expect(() => createTronAdapter(resolveChainConfig("SOLANA", { rpcUrl: tron.node.url }))).toThrow(
      /not a Tron chain/,
    );
  });
});

describe("Tron verifyNetwork", () => {
  it("accepts the test node as regtest and refuses it as mainnet or testnet, naming its block 0", async () => {
    await expect(tron.adapter.verifyNetwork()).resolves.toBeUndefined();
    for (const network of ["mainnet", "testnet"] as const) {
      const wrong = createTronAdapter({ ...tron.config, network });
      const error = await wrong.verifyNetwork().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ChainMisconfiguredError);
      expect(error).toMatchObject({ retryable: false, details: { network, genesisBlockId: tron.node.blockId(0) } });
    }
  });

  it("accepts a node whose block 0 is the configured network's genesis", async () => {
    const withGenesis =
      (blockID: string): typeof globalThis.fetch =>
      async () =>
        new Response(JSON.stringify({ blockID, block_header: { raw_data: { parentHash: "00".repeat(32) } } }));
    await expectNetworkVerifiedByGenesis(
      (network, genesis) => createTronAdapter({ ...tron.config, network }, { fetch: withGenesis(genesis) }),
      {
        mainnet: "00000000000000001ebf88508a03865c71d452e25f4d51194196a1d22b6653dc",
        testnet: "0000000000000000d698d4192c56cb6be724a558448e2684802de4d6cd8690dc", // Nile
      },
    );
  });
});

describe("Tron faucet on the test node", () => {
  it("sends TRX and USDT that the adapter then finds", async () => {
    const faucet = createTronFaucet(tron.config);
    expect(faucet.assets()).toEqual([
      { asset: "TRX", address: null, decimals: 6 },
      { asset: "USDT", address: tron.node.tokens[0]?.address, decimals: 6 },
    ]);
    await tron.expectFaucetSendsFound(faucet, { TRX: 2n * TRX, USDT: 3_000_000n });
    expect(tron.node.balance(tron.alice)).toBe(2n * TRX);
  });

  it("refuses bad input without calling the node", async () => {
    await tron.expectFaucetRefusesBadInput(createTronFaucet(tron.config), "TRX", "not-an-address");
  });

  it("reports an unreachable node as retryable", async () => {
    const faucet = createTronFaucet(resolveChainConfig("TRON", { rpcUrl: "http://127.0.0.1:1", network: "regtest" }));
    await expect(faucet.send(wallet(), "TRX", 1n)).rejects.toMatchObject({ retryable: true });
  });
});
