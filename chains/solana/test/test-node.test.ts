import { verify } from "node:crypto";
import { associatedTokenAddress, type SolanaTestNode, startSolanaTestNode } from "@mp/test-nodes/solana";
import { Keypair, SystemInstruction, Transaction, VersionedTransaction } from "@solana/web3.js";
import bs58 from "bs58";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const SOL = 1_000_000_000n;
let node: SolanaTestNode;

beforeAll(async () => {
  node = await startSolanaTestNode();
});
afterAll(async () => {
  await node.stop();
});

async function rpc(body: unknown): Promise<unknown> {
  const response = await fetch(node.url, { method: "POST", body: JSON.stringify(body) });
  return response.json();
}
const call = (method: string, params: unknown[]) => rpc({ jsonrpc: "2.0", id: 1, method, params });

/** Ed25519 verification with node:crypto (SPKI = fixed prefix + 32-byte public key). */
function ed25519Verify(publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array): boolean {
  const spki = Buffer.concat([Buffer.from("302a300506032b6570032100", "hex"), publicKey]);
  return verify(null, message, { key: spki, format: "der", type: "spki" }, signature);
}

describe("Solana test node encodings", () => {
  it("derives associated token accounts exactly as on mainnet (recorded ATA creations)", () => {
    // wallet, mint -> account, from the recorded transactions in fixtures/
    expect(
      associatedTokenAddress(
        "4ToQp55myvfpeprgKuqGbDqyji9Ezm7CZg7QbcTpL33S",
        "3KDvwAuSFMUiRNhd6FZgHKXsd6qkoeRuHvpKV2vBpump",
      ),
    ).toBe("DvUiL53BTmonqJi4TmYZw1uLJZgY6YAoyvta49mPLcbQ");
    expect(
      associatedTokenAddress(
        "9647kmH4FriCa1bWqEDBdBqRzrn4TfzFUVbbSe6jiYUY",
        "9nRTx2xM7EFkveqssYAJ7Mz7fu4KNgE3Y1wuGCkjMY1s",
      ),
    ).toBe("HdeBTgivq3cHnsuxDKzWzEKcbpzKzzpzm4gsx5DTQwio");
    expect(
      associatedTokenAddress(
        "Jp8xRDtkd8LQwGvPV8z4DdARsCy23Vi9m2dqyqNsszG",
        "J1Wpmugrooj1yMyQKrdZ2vwRXG5rhfx3vTnYE39gpump",
      ),
    ).toBe("6X6V7GcxuNt6inqFeyC2fKm7JPAqnZAmUAswc4Q5X7Lz");
  });

  it("signs legacy transactions web3.js can decode and verify", () => {
    const sender = Keypair.generate();
    const to = Keypair.generate().publicKey;
    node.transfer(sender.publicKey.toBase58(), 5n * SOL);
    node.mine();
    const signature = node.transfer(to.toBase58(), 1_234_567_890n, { from: sender });
    node.mine();
    const landed = node.transaction(signature);
    if (!landed) throw new Error("transaction did not land");
    const tx = Transaction.from(landed.wire);
    expect(tx.verifySignatures()).toBe(true);
    expect(bs58.encode(tx.signature ?? new Uint8Array())).toBe(signature);
    expect(tx.feePayer?.toBase58()).toBe(sender.publicKey.toBase58());
    const [ix] = tx.instructions;
    if (!ix) throw new Error("no instruction");
    expect(SystemInstruction.decodeTransfer(ix)).toEqual({
      fromPubkey: sender.publicKey,
      toPubkey: to,
      lamports: 1_234_567_890n,
    });
  });

  it("signs v0 transactions whose message and signature check out", () => {
    const to = Keypair.generate().publicKey.toBase58();
    const signature = node.transferToken(to, "USDT", 99n, { version: 0 });
    node.mine();
    const landed = node.transaction(signature);
    if (!landed) throw new Error("transaction did not land");
    const tx = VersionedTransaction.deserialize(landed.wire);
    expect(tx.version).toBe(0);
    const [sig] = tx.signatures;
    if (!sig) throw new Error("unsigned");
    expect(bs58.encode(sig)).toBe(signature);
    const payer = tx.message.staticAccountKeys[0];
    expect(payer?.toBase58()).toBe(node.faucetAddress);
    expect(ed25519Verify(payer?.toBytes() ?? new Uint8Array(), tx.message.serialize(), sig)).toBe(true);
    const keys = tx.message.staticAccountKeys.map((k) => k.toBase58());
    expect(keys).toContain(node.associatedTokenAddress(to, "USDT"));
    expect(keys).toContain("ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL");
  });

  it("gives the same keys and mints for the same seed", async () => {
    const again = await startSolanaTestNode();
    try {
      expect(again.faucetAddress).toBe(node.faucetAddress);
      expect(again.tokens).toEqual(node.tokens);
    } finally {
      await again.stop();
    }
  });
});

describe("Solana test node RPC", () => {
  it("serves getBlock in the public jsonParsed shape, with token balances by owner", async () => {
    const owner = Keypair.generate().publicKey.toBase58();
    node.transferToken(owner, "USDC", 1_500_000n);
    const [slot] = node.mine();
    const answer = (await call("getBlock", [
      slot,
      { encoding: "jsonParsed", maxSupportedTransactionVersion: 0, rewards: false },
    ])) as {
      result: Record<string, unknown> & { transactions: Array<{ meta: Record<string, unknown>; version: unknown }> };
    };
    expect(Object.keys(answer.result)).toEqual([
      "blockHeight",
      "blockTime",
      "blockhash",
      "parentSlot",
      "previousBlockhash",
      "transactions",
    ]);
    const [tx] = answer.result.transactions;
    expect(tx?.version).toBe("legacy");
    expect(Object.keys(tx?.meta ?? {})).toEqual([
      "computeUnitsConsumed",
      "err",
      "fee",
      "innerInstructions",
      "logMessages",
      "postBalances",
      "postTokenBalances",
      "preBalances",
      "preTokenBalances",
      "rewards",
      "status",
    ]);
    expect(tx?.meta.status).toEqual({ Ok: null });
    expect(tx?.meta.postTokenBalances).toContainEqual({
      accountIndex: expect.any(Number),
      mint: node.tokens.find((t) => t.asset === "USDC")?.address,
      owner,
      programId: "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA",
      uiTokenAmount: { amount: "1500000", decimals: 6, uiAmount: 1.5, uiAmountString: "1.5" },
    });
  });

  it("answers skipped, future and versioned blocks with agave's errors", async () => {
    const before = node.head();
    node.skipSlots(1);
    node.transferToken(Keypair.generate().publicKey.toBase58(), "USDC", 1n, { version: 0 });
    const [slot] = node.mine();
    expect(
      await call("getBlock", [before + 1, { encoding: "jsonParsed", maxSupportedTransactionVersion: 0 }]),
    ).toMatchObject({
      error: {
        code: -32007,
        message: `Slot ${before + 1} was skipped, or missing due to ledger jump to recent snapshot`,
      },
    });
    expect(await call("getBlock", [node.head() + 5, { encoding: "jsonParsed" }])).toMatchObject({
      error: { code: -32004 },
    });
    expect(await call("getBlock", [slot, { encoding: "jsonParsed" }])).toMatchObject({ error: { code: -32015 } });
    expect(await call("getBlock", [slot, { commitment: "processed" }])).toMatchObject({ error: { code: -32602 } });
    expect(await call("getBlocks", [before, before + 2])).toMatchObject({ result: [before, before + 2] });
    expect(await call("getBlocks", [0, 600_000])).toMatchObject({ error: { code: -32602 } });
    expect(await call("getProgramAccounts", [node.faucetAddress])).toMatchObject({ error: { code: -32601 } });
  });

  it("purges old blocks as a ledger size limit does: getBlocks omits them, getBlock says cleaned up", async () => {
    const pruned = await startSolanaTestNode({ seed: "purging-node" });
    try {
      const ask = async (method: string, params: unknown[]) => {
        const response = await fetch(pruned.url, {
          method: "POST",
          body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
        });
        return response.json();
      };
      pruned.skipSlots(2);
      const [first, second, third] = pruned.mine(3);
      expect(await ask("getFirstAvailableBlock", [])).toMatchObject({ result: 0 });
      pruned.purgeBelow(second ?? 0);
      expect(await ask("getFirstAvailableBlock", [])).toMatchObject({ result: second });
      expect(await ask("getBlocks", [0, third])).toMatchObject({ result: [second, third] });
      expect(await ask("getBlock", [first, { encoding: "jsonParsed" }])).toMatchObject({
        error: {
          code: -32001,
          message: `Block ${first} cleaned up, does not exist on node. First available block: ${second}`,
        },
      });
      expect(await ask("getGenesisHash", [])).toEqual({ jsonrpc: "2.0", id: 1, result: pruned.genesisHash });
      expect(pruned.genesisHash).not.toBe(node.genesisHash);
    } finally {
      await pruned.stop();
    }
  });

  it("answers a JSON-RPC batch in order, header-only blocks without transactions", async () => {
    const [slot] = node.mine();
    const answer = await rpc([
      { jsonrpc: "2.0", id: "a", method: "getSlot", params: [{ commitment: "confirmed" }] },
      { jsonrpc: "2.0", id: "b", method: "getBlock", params: [slot, { transactionDetails: "none", rewards: false }] },
    ]);
    expect(answer).toEqual([
      { jsonrpc: "2.0", result: node.head(), id: "a" },
      {
        jsonrpc: "2.0",
        result: {
          blockHeight: expect.any(Number),
          blockTime: expect.any(Number),
          blockhash: node.blockhash(slot ?? -1),
          parentSlot: expect.any(Number),
          previousBlockhash: expect.any(String),
        },
        id: "b",
      },
    ]);
  });

  it("reports a finalized slot 32 blocks behind the confirmed one", async () => {
    node.mine(40);
    const confirmed = await call("getSlot", [{ commitment: "confirmed" }]);
    const finalized = (await call("getSlot", [{ commitment: "finalized" }])) as { result: number };
    expect(confirmed).toMatchObject({ result: node.head() });
    const blocks = (await call("getBlocks", [finalized.result, node.head()])) as { result: number[] };
    expect(blocks.result).toHaveLength(33);
  });

  it("airdrops through requestAirdrop and refuses a bad pubkey", async () => {
    const to = Keypair.generate().publicKey.toBase58();
    const answer = (await call("requestAirdrop", [to, 2_000_000_000])) as { result: string };
    expect(answer.result).toMatch(/^[1-9A-HJ-NP-Za-km-z]{64,88}$/);
    node.mine();
    expect(node.balance(to)).toBe(2_000_000_000n);
    expect(node.transaction(answer.result)?.failed).toBe(false);
    expect(await call("requestAirdrop", ["nope", 1])).toMatchObject({ error: { code: -32602 } });
  });

  it("mines on a timer when given blockIntervalMs", async () => {
    const timed = await startSolanaTestNode({ blockIntervalMs: 20, seed: "timer" });
    try {
      const start = timed.head();
      // Polled, not slept: a loaded machine's timers fire late (a fixed 200 ms saw 2 blocks at load 9).
      const deadline = Date.now() + 60_000;
      while (timed.head() <= start + 2 && Date.now() < deadline)
        await new Promise((resolve) => setTimeout(resolve, 10));
      expect(timed.head()).toBeGreaterThan(start + 2);
    } finally {
      await timed.stop();
    }
  });
});
