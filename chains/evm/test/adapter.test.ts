import {
  type ChainAdapter,
  ChainMisconfiguredError,
  type ObservedTransfer,
  resolveChainConfig,
  ServiceUnavailableError,
  ValidationError,
} from "@mp/core";
import {
  type AnvilNode,
  batchTransferToken,
  deployRevertingReceiver,
  deployTestToken,
  sendNative,
  type TestToken,
  transferToken,
} from "@mp/test-nodes/evm";
import { getAddress } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startAnvilWithUsdc } from "../../../test/support/anvil-usdc.ts";
import { createEvmAdapter } from "../src/index.ts";

/** Real anvil, real ERC-20: what the indexer sees through the adapter. */

const ALICE = "0x00000000000000000000000000000000000a11ce";
const BOB = "0x0000000000000000000000000000000000000b0b";
const CAROL = "0x00000000000000000000000000000000000Ca201";
const STRANGER = "0x000000000000000000000000000000000005EE11";

let node: AnvilNode;
let usdc: TestToken;
let adapter: ChainAdapter;

const watching = (...addresses: string[]) => new Set(addresses.map((a) => a.toLowerCase()));

beforeAll(async () => {
  const anvil = await startAnvilWithUsdc({ chainId: 8453 });
  ({ node, usdc } = anvil);
  // BASE mainnet on Base's chain id: verifyNetwork below accepts it as it is.
  adapter = createEvmAdapter(resolveChainConfig("BASE", anvil.baseChain({ network: "mainnet" })));
});

afterAll(async () => {
  await node?.stop();
});

/** Runs `act` and scans exactly the blocks it mined. */
async function scanAfter(act: () => Promise<unknown>, watch: Set<string>): Promise<ObservedTransfer[]> {
  const from = (await adapter.head()) + 1;
  await act();
  const to = await adapter.head();
  return adapter.scan({ from, to }, watch);
}

describe("scan", () => {
  it("finds native and ERC-20 transfers to watched addresses with amounts, positions and checksummed recipients", async () => {
    let native: { txHash: string; blockNumber: number; blockHash: string } | undefined;
    let token: { txHash: string; blockNumber: number } | undefined;
    const found = await scanAfter(async () => {
      native = await sendNative(node, ALICE, 1_500_000_000_000_000_000n);
      token = await transferToken(node, usdc, ALICE, 12_500_000n);
    }, watching(ALICE));
    expect(found).toEqual([
      {
        txHash: native?.txHash,
        position: "native",
        blockHeight: native?.blockNumber,
        blockHash: native?.blockHash,
        from: node.accounts[0]?.address,
        to: getAddress(ALICE),
        asset: "ETH",
        contractAddress: null,
        amountRaw: 1_500_000_000_000_000_000n,
        decimals: 18,
      },
      expect.objectContaining({
        txHash: token?.txHash,
        position: "log:0",
        blockHeight: token?.blockNumber,
        to: getAddress(ALICE),
        asset: "USDC",
        contractAddress: usdc.address,
        amountRaw: 12_500_000n,
        decimals: 6,
      }),
    ]);
    expect(found[1]?.to).toBe("0x00000000000000000000000000000000000A11cE");
  });

  it("ignores transfers to addresses nobody watches", async () => {
    const found = await scanAfter(async () => {
      await sendNative(node, STRANGER, 10n ** 18n);
      await transferToken(node, usdc, STRANGER, 1_000_000n);
      await sendNative(node, BOB, 7n);
    }, watching(BOB));
    expect(found.map((t) => [t.to, t.asset, t.amountRaw])).toEqual([[getAddress(BOB), "ETH", 7n]]);
  });

  it("gives one transfer per watched recipient of a multi-recipient transaction, in log order", async () => {
    let batch: { txHash: string } | undefined;
    const found = await scanAfter(
      async () => {
        batch = await batchTransferToken(node, usdc, [
          { to: ALICE, amount: 1n },
          { to: STRANGER, amount: 2n },
          { to: BOB, amount: 3n },
          { to: CAROL, amount: 4n },
          { to: ALICE, amount: 5n },
        ]);
      },
      watching(ALICE, BOB, CAROL),
    );
    expect(found.map((t) => [t.txHash, t.position, t.to, t.amountRaw])).toEqual([
      [batch?.txHash, "log:0", getAddress(ALICE), 1n],
      [batch?.txHash, "log:2", getAddress(BOB), 3n],
      [batch?.txHash, "log:3", getAddress(CAROL), 4n],
      [batch?.txHash, "log:4", getAddress(ALICE), 5n],
    ]);
  });

  it("never returns a reverted native transfer (receipt status 0)", async () => {
    const receiver = await deployRevertingReceiver(node);
    let reverted: { status: string } | undefined;
    const found = await scanAfter(async () => {
      reverted = await sendNative(node, receiver, 10n ** 17n, { gas: 100_000n });
      await sendNative(node, receiver, 0n);
    }, watching(receiver));
    expect(reverted?.status).toBe("reverted");
    expect(found).toEqual([]);
  });

  it("never returns a reverted token transfer, nor zero amounts", async () => {
    const poor = node.accounts[1];
    if (!poor) throw new Error("no second account");
    let reverted: { status: string } | undefined;
    const found = await scanAfter(async () => {
      reverted = await transferToken(node, usdc, ALICE, 1n, { from: poor, gas: 100_000n });
      await transferToken(node, usdc, ALICE, 0n);
    }, watching(ALICE));
    expect(reverted?.status).toBe("reverted");
    expect(found).toEqual([]);
  });

  it("ignores tokens that are not configured", async () => {
    const other = await deployTestToken(node, { name: "Other", symbol: "OTH", decimals: 18 });
    const found = await scanAfter(() => transferToken(node, other, ALICE, 10n ** 18n), watching(ALICE));
    expect(found).toEqual([]);
  });

  it("covers empty blocks and returns nothing for an empty range", async () => {
    const from = (await adapter.head()) + 1;
    await node.mine(5);
    await expect(adapter.scan({ from, to: from + 4 }, watching(ALICE))).resolves.toEqual([]);
    await expect(adapter.scan({ from, to: from - 1 }, watching(ALICE))).resolves.toEqual([]);
    await expect(adapter.scan({ from: -1, to: 3 }, watching(ALICE))).rejects.toBeInstanceOf(ValidationError);
  });

  it("fails retryably for blocks the node does not have yet", async () => {
    const head = await adapter.head();
    const error = await adapter.headers({ from: head, to: head + 2 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ServiceUnavailableError);
    expect(error).toMatchObject({ retryable: true });
    await expect(adapter.scan({ from: head, to: head + 2 }, watching(ALICE))).rejects.toBeInstanceOf(
      ServiceUnavailableError,
    );
  });
});

describe("verifyNetwork", () => {
  it("accepts eth_chainId of the configured chain and network, refuses any other with ChainMisconfiguredError", async () => {
    await expect(adapter.verifyNetwork()).resolves.toBeUndefined(); // BASE mainnet, chain id 8453
    const onNode = (chain: "BASE" | "ETHEREUM", network: "mainnet" | "testnet" | "regtest") =>
      createEvmAdapter(resolveChainConfig(chain, { rpcUrl: node.url, network }));
    await expect(onNode("BASE", "regtest").verifyNetwork()).resolves.toBeUndefined();
    for (const [chain, network, expected] of [
      ["BASE", "testnet", [84532]],
      ["ETHEREUM", "mainnet", [1]],
    ] as const) {
      const error = await onNode(chain, network)
        .verifyNetwork()
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ChainMisconfiguredError);
      expect(error).toMatchObject({ retryable: false, details: { network, expected, chainId: 8453 } });
      expect((error as Error).message).toContain(`CHAINS_CONFIG.${chain}.network is ${network}`);
    }
  });
});

describe("headers and reorgs", () => {
  it("returns ascending linked headers, and the hashes at the same heights change after anvil_reorg", async () => {
    await node.mine(3);
    const head = await adapter.head();
    const before = await adapter.headers({ from: head - 5, to: head });
    expect(before.map((h) => h.height)).toEqual([0, 1, 2, 3, 4, 5].map((i) => head - 5 + i));
    for (let i = 1; i < before.length; i++) expect(before[i]?.parentHash).toBe(before[i - 1]?.hash);

    await node.reorg(2);
    const after = await adapter.headers({ from: head - 5, to: head });
    expect(after.slice(0, 4)).toEqual(before.slice(0, 4));
    expect(after[4]?.hash).not.toBe(before[4]?.hash);
    expect(after[5]?.hash).not.toBe(before[5]?.hash);
    expect(after[4]?.parentHash).toBe(after[3]?.hash);
    expect(after[5]?.parentHash).toBe(after[4]?.hash);
  });

  it("drops a transfer whose block was reorged out, and finds it in its new block when re-included", async () => {
    const from = (await adapter.head()) + 1;
    const paid = await sendNative(node, CAROL, 42n);
    await node.mine(2);
    const first = await adapter.scan({ from, to: await adapter.head() }, watching(CAROL));
    expect(first.map((t) => [t.txHash, t.blockHeight, t.blockHash])).toEqual([
      [paid.txHash, paid.blockNumber, paid.blockHash],
    ]);

    // Replace the last 3 blocks; the payment is dropped.
    await node.reorg(3);
    const head = await adapter.head();
    expect(await adapter.scan({ from, to: head }, watching(CAROL))).toEqual([]);

    // Replace them again, this time with the payment re-sent into the second block of the branch.
    const sender = node.accounts[2];
    if (!sender) throw new Error("no third account");
    await node.reorg(3, [
      { transaction: { from: sender.address, to: getAddress(CAROL), value: "0x2b" }, blockOffset: 1 },
    ]);
    const again = await adapter.scan({ from, to: await adapter.head() }, watching(CAROL));
    expect(again).toHaveLength(1);
    expect(again[0]).toMatchObject({ blockHeight: from + 1, amountRaw: 43n, from: sender.address });
    const [header] = await adapter.headers({ from: from + 1, to: from + 1 });
    expect(again[0]?.blockHash).toBe(header?.hash);
  });
});
