import { ChainMisconfiguredError, resolveChainConfig, ServiceUnavailableError } from "@mp/core";
import { startSolanaTestNode } from "@mp/test-nodes/solana";
import { Keypair } from "@solana/web3.js";
import { describe, expect, it } from "vitest";
import { expectNetworkVerifiedByGenesis, useTestNodeAdapter } from "../../../test/support/test-node-adapter.ts";
import { createSolanaAdapter, createSolanaFaucet } from "../src/index.ts";

const SOL = 1_000_000_000n;
const wallet = () => Keypair.generate().publicKey.toBase58();

const solana = useTestNodeAdapter({
  chain: "SOLANA",
  start: () => startSolanaTestNode(),
  createAdapter: (config) => createSolanaAdapter(config),
  newWallet: wallet,
});

describe("Solana adapter against the test node", () => {
  it("reports the node's newest slot as head", async () => {
    await solana.expectHeadFollowsNode();
  });

  it("finds a SOL transfer to a watched address as soon as its block exists", async () => {
    const signature = solana.node.transfer(solana.alice, 2n * SOL);
    const { height: slot, transfers } = await solana.mineAndScan(new Set([solana.alice]));
    expect(transfers).toEqual([
      {
        txHash: signature,
        position: "ix:0",
        blockHeight: slot,
        blockHash: solana.node.blockhash(slot),
        from: solana.node.faucetAddress,
        to: solana.alice,
        asset: "SOL",
        contractAddress: null,
        amountRaw: 2n * SOL,
        decimals: 9,
      },
    ]);
  });

  it("ignores transfers to addresses that are not watched", async () => {
    solana.node.transfer(solana.bob, SOL);
    solana.node.transferToken(solana.bob, "USDC", 5_000_000n);
    const { transfers } = await solana.mineAndScan(new Set([solana.alice]));
    expect(transfers).toEqual([]);
  });

  it("credits a token transfer into the associated token account to the owner", async () => {
    const usdc = solana.node.tokens.find((t) => t.asset === "USDC");
    const signature = solana.node.transferToken(solana.alice, "USDC", 12_500_000n);
    const { height: slot, transfers } = await solana.mineAndScan(new Set([solana.alice]));
    expect(transfers).toHaveLength(1);
    const [deposit] = transfers;
    expect(deposit).toMatchObject({
      txHash: signature,
      to: solana.alice,
      from: solana.node.faucetAddress,
      asset: "USDC",
      contractAddress: usdc?.address,
      amountRaw: 12_500_000n,
      decimals: 6,
      blockHeight: slot,
    });
    // The balance that moved is the ATA's, at the index the position names.
    const ata = solana.node.associatedTokenAddress(solana.alice, "USDC");
    const block = await getBlockJson(slot);
    const accountIndex = Number(deposit?.position.replace("bal:", ""));
    expect(block.transactions[0]?.transaction.message.accountKeys[accountIndex]?.pubkey).toBe(ata);
    expect(solana.node.tokenBalance(solana.alice, "USDC")).toBe(12_500_000n);

    // A second payment into the now existing account is credited the same way.
    solana.node.transferToken(solana.alice, "USDC", 1n);
    const second = await solana.mineAndScan(new Set([solana.alice]));
    expect(second.transfers.map((t) => [t.to, t.amountRaw])).toEqual([[solana.alice, 1n]]);
    const secondIndex = Number(second.transfers[0]?.position.replace("bal:", ""));
    const secondBlock = await getBlockJson(second.height);
    expect(secondBlock.transactions[0]?.transaction.message.accountKeys[secondIndex]?.pubkey).toBe(ata);
  });

  it("never returns a failed transaction, though its instruction names the watched address", async () => {
    const signature = solana.node.failTransfer(solana.alice, 3n * SOL);
    const { height: slot, transfers } = await solana.mineAndScan(new Set([solana.alice]));
    expect(transfers).toEqual([]);
    expect(solana.node.transaction(signature)).toMatchObject({ slot, failed: true });
    const block = await getBlockJson(slot);
    const tx = block.transactions[0];
    expect(tx?.meta.err).toEqual({ InstructionError: [1, { Custom: 6000 }] });
    expect(tx?.transaction.message.instructions[0]?.parsed?.info?.destination).toBe(solana.alice);
    expect(solana.node.balance(solana.alice)).toBe(0n);
  });

  it("never returns a token transfer that failed for lack of funds", async () => {
    const poor = Keypair.generate();
    solana.node.transfer(poor.publicKey.toBase58(), SOL); // pays fees and rent, holds no USDC
    solana.node.mine();
    const signature = solana.node.transferToken(solana.alice, "USDC", 1_000_000n, { from: poor });
    const { transfers } = await solana.mineAndScan(new Set([solana.alice]));
    expect(transfers).toEqual([]);
    expect(solana.node.transaction(signature)?.failed).toBe(true);
  });

  it("finds SOL moved by a program through an inner instruction", async () => {
    const signature = solana.node.transferViaProgram(solana.alice, SOL / 2n);
    const { transfers } = await solana.mineAndScan(new Set([solana.alice]));
    expect(transfers).toMatchObject([
      {
        txHash: signature,
        position: "ix:0.0",
        to: solana.alice,
        from: solana.node.faucetAddress,
        amountRaw: SOL / 2n,
        asset: "SOL",
      },
    ]);
  });

  it("gives one transfer per payment when one transaction pays several watched addresses", async () => {
    const carol = wallet();
    const signature = solana.node.send([
      { kind: "sol", to: solana.alice, lamports: SOL },
      { kind: "memo", text: "payroll" },
      { kind: "sol", to: solana.bob, lamports: 2n * SOL },
      { kind: "token", mint: solana.node.tokens[1]?.address ?? "", to: carol, amount: 7n },
      { kind: "solViaProgram", to: solana.alice, lamports: 3n * SOL },
      { kind: "sol", to: wallet(), lamports: SOL },
    ]);
    const { transfers } = await solana.mineAndScan(new Set([solana.alice, solana.bob, carol]));
    expect(transfers.map((t) => [t.txHash, t.position, t.to, t.asset, t.amountRaw])).toEqual([
      [signature, "ix:0", solana.alice, "SOL", SOL],
      [signature, "ix:2", solana.bob, "SOL", 2n * SOL],
      [signature, "ix:5.0", solana.alice, "SOL", 3n * SOL],
      [signature, expect.stringMatching(/^bal:\d+$/), carol, "USDT", 7n],
    ]);
  });

  it("scans versioned (v0) transactions", async () => {
    const signature = solana.node.transferToken(solana.alice, "USDT", 42n, { version: 0 });
    const { transfers } = await solana.mineAndScan(new Set([solana.alice]));
    expect(transfers).toMatchObject([{ txHash: signature, asset: "USDT", amountRaw: 42n }]);
  });

  it("keeps amounts beyond 2^53 lamports exact", async () => {
    const tenMillionSol = 10_000_000n * SOL; // 10^16 > 2^53
    solana.node.transfer(solana.alice, tenMillionSol);
    const { transfers } = await solana.mineAndScan(new Set([solana.alice]));
    expect(transfers.map((t) => t.amountRaw)).toEqual([tenMillionSol]);
  });

  it("fails a payment that would leave a new wallet below rent exemption, and does not report it", async () => {
    const signature = solana.node.transfer(solana.alice, 1_000n);
    const { transfers } = await solana.mineAndScan(new Set([solana.alice]));
    expect(transfers).toEqual([]);
    expect(solana.node.transaction(signature)?.failed).toBe(true);
  });

  it("treats skipped slots as heights without a block", async () => {
    const before = solana.node.head();
    solana.node.skipSlots(3);
    solana.node.transfer(solana.alice, SOL);
    const [slot] = solana.node.mine();
    expect(slot).toBe(before + 4);
    const headers = await solana.adapter.headers({ from: before, to: before + 4 });
    expect(headers.map((h) => h.height)).toEqual([before, before + 4]);
    expect(headers[1]?.parentHash).toBe(headers[0]?.hash);
    const transfers = await solana.adapter.scan({ from: before + 1, to: before + 4 }, new Set([solana.alice]));
    expect(transfers.map((t) => t.blockHeight)).toEqual([before + 4]);
    await expect(solana.adapter.scan({ from: before + 1, to: before + 3 }, new Set([solana.alice]))).resolves.toEqual(
      [],
    );
  });

  it("handles empty blocks and empty ranges", async () => {
    const [slot] = solana.node.mine();
    if (slot === undefined) throw new Error("no block");
    await expect(solana.adapter.scan({ from: slot, to: slot }, new Set([solana.alice]))).resolves.toEqual([]);
    await expect(solana.adapter.headers({ from: slot, to: slot - 1 })).resolves.toEqual([]);
  });

  it("returns headers that chain by parent hash, ascending, across several JSON-RPC batches", async () => {
    solana.node.mine(25);
    const head = solana.node.head();
    const headers = await solana.adapter.headers({ from: head - 24, to: head });
    expect(headers.map((h) => h.height)).toEqual(Array.from({ length: 25 }, (_, i) => head - 24 + i));
    expect(headers.map((h) => h.hash)).toEqual(headers.map((h) => solana.node.blockhash(h.height)));
    for (let i = 1; i < headers.length; i++) expect(headers[i]?.parentHash).toBe(headers[i - 1]?.hash);
  });

  it("sees a reorg: new hashes at the same heights, dropped transfers gone, delayed ones later", async () => {
    const kept = solana.node.transfer(solana.alice, SOL);
    const dropped = solana.node.transfer(solana.bob, SOL);
    const delayed = solana.node.transferToken(solana.alice, "USDC", 5n);
    const [first] = solana.node.mine();
    solana.node.mine(2);
    if (first === undefined) throw new Error("no block");
    const head = solana.node.head();
    const watch = new Set([solana.alice, solana.bob]);
    const before = await solana.adapter.headers({ from: first - 1, to: head });
    expect((await solana.adapter.scan({ from: first, to: head }, watch)).map((t) => t.txHash)).toEqual([
      kept,
      dropped,
      delayed,
    ]);

    solana.node.reorg(3, { drop: [dropped], delay: [delayed] });
    const after = await solana.adapter.headers({ from: first - 1, to: head });
    expect(after.map((h) => h.height)).toEqual(before.map((h) => h.height));
    expect(after[0]?.hash).toBe(before[0]?.hash); // the fork point is untouched
    for (let i = 1; i < after.length; i++) {
      expect(after[i]?.hash).not.toBe(before[i]?.hash);
      expect(after[i]?.parentHash).toBe(after[i - 1]?.hash);
    }
    const onFork = await solana.adapter.scan({ from: first, to: head }, watch);
    expect(onFork.map((t) => [t.txHash, t.blockHash])).toEqual([[kept, after[1]?.hash]]);
    expect(solana.node.balance(solana.bob)).toBe(0n);

    const [later] = solana.node.mine();
    const moved = await solana.adapter.scan({ from: head + 1, to: later ?? head + 1 }, watch);
    expect(moved.map((t) => [t.txHash, t.position, t.blockHeight])).toEqual([
      [delayed, expect.stringMatching(/^bal:/), later],
    ]);
  });

  it("throws a retryable error while the node is down and recovers when it is back", async () => {
    solana.node.transfer(solana.alice, SOL);
    const [slot] = solana.node.mine();
    if (slot === undefined) throw new Error("no block");
    await solana.node.stop();
    try {
      for (const call of [
        () => solana.adapter.head(),
        () => solana.adapter.headers({ from: slot, to: slot }),
        () => solana.adapter.scan({ from: slot, to: slot }, new Set([solana.alice])),
      ]) {
        const error = await call().catch((e: unknown) => e);
        expect(error).toBeInstanceOf(ServiceUnavailableError);
        expect(error).toMatchObject({ code: "service_unavailable", retryable: true });
        expect(String(error)).not.toContain(solana.node.url);
      }
    } finally {
      await solana.node.restart();
    }
    await expect(solana.adapter.scan({ from: slot, to: slot }, new Set([solana.alice]))).resolves.toHaveLength(1);
  });
});

describe("Solana adapter and a node that purged old slots", () => {
  it("stops with ChainMisconfiguredError instead of passing over purged slots as skipped ones", async () => {
    const pruned = await startSolanaTestNode({ seed: "pruned-ledger" });
    try {
      const prunedAdapter = createSolanaAdapter(
        resolveChainConfig("SOLANA", { rpcUrl: pruned.url, tokens: [...pruned.tokens], network: "regtest" }),
      );
      const alice = wallet();
      pruned.transfer(alice, 3n * SOL);
      const [paid] = pruned.mine();
      const [kept] = pruned.mine(2);
      pruned.purgeBelow(kept ?? 0);
      for (const read of [
        () => prunedAdapter.scan({ from: paid ?? 0, to: pruned.head() }, new Set([alice])),
        () => prunedAdapter.headers({ from: 0, to: pruned.head() }),
      ]) {
        const error = await read().catch((e: unknown) => e);
        expect(error).toBeInstanceOf(ChainMisconfiguredError);
        expect(error).toMatchObject({
          code: "chain_misconfigured",
          retryable: false,
          details: { firstAvailableBlock: kept },
          message: expect.stringMatching(/has purged slots .* first available block is/),
        });
      }
      // From the first available slot on, the node still serves everything.
      const headers = await prunedAdapter.headers({ from: kept ?? 0, to: pruned.head() });
      expect(headers.map((header) => header.height)).toEqual([kept, (kept ?? 0) + 1]);
    } finally {
      await pruned.stop();
    }
  });
});

describe("Solana verifyNetwork", () => {
  it("accepts the test node as regtest and refuses it as mainnet or testnet", async () => {
    await expect(solana.adapter.verifyNetwork()).resolves.toBeUndefined();
    for (const network of ["mainnet", "testnet"] as const) {
      const wrong = createSolanaAdapter(resolveChainConfig("SOLANA", { rpcUrl: solana.node.url, network }));
      const error = await wrong.verifyNetwork().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ChainMisconfiguredError);
      expect(error).toMatchObject({ retryable: false, details: { network, genesisHash: solana.node.genesisHash } });
    }
  });

  it("accepts a node whose genesis hash is the configured cluster's", async () => {
    const answering =
      (genesis: string): typeof globalThis.fetch =>
      async (_input, init) =>
        new Response(JSON.stringify({ jsonrpc: "2.0", id: JSON.parse(String(init?.body)).id, result: genesis }));
    const mainnet = resolveChainConfig("SOLANA", { rpcUrl: "http://solana.invalid", network: "mainnet" });
    await expectNetworkVerifiedByGenesis(
      (network, genesis) => createSolanaAdapter({ ...mainnet, network }, { fetch: answering(genesis) }),
      {
        mainnet: "5eykt4UsFv8P8NJdTREpY1vzqKqZKvdpKuc147dw2N9d",
        testnet: "EtWTRABZaYq6iMfeYKouRu166VU2xqa1wcaWoxPkrZBG", // devnet
      },
    );
  });
});

describe("Solana faucet against the test node", () => {
  it("airdrops SOL through requestAirdrop and sends tokens through the test transfer endpoint", async () => {
    const faucet = createSolanaFaucet(solana.config);
    expect(faucet.assets().map((a) => a.asset)).toEqual(["SOL", "USDC", "USDT"]);
    await solana.expectFaucetSendsFound(faucet, { SOL: 3n * SOL, USDT: 25_000_000n });
    expect(solana.node.balance(solana.alice)).toBe(3n * SOL);
  });

  it("refuses a malformed address, an unknown asset and a non-positive amount", async () => {
    await solana.expectFaucetRefusesBadInput(createSolanaFaucet(solana.config), "USDC", "0xabc");
  });
});

interface BlockJson {
  transactions: Array<{
    meta: { err: unknown };
    transaction: {
      message: {
        accountKeys: Array<{ pubkey: string }>;
        instructions: Array<{ parsed?: { info?: { destination?: string } } }>;
      };
    };
  }>;
}

async function getBlockJson(slot: number): Promise<BlockJson> {
  const response = await fetch(solana.node.url, {
    method: "POST",
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "getBlock",
      params: [slot, { encoding: "jsonParsed", maxSupportedTransactionVersion: 0, rewards: false }],
    }),
  });
  const body = (await response.json()) as { result: BlockJson };
  return body.result;
}
