import * as ecc from "@bitcoinerlab/secp256k1";
import { resolveChainConfig } from "@mp/core";
import { parseJsonExact } from "@mp/rpc";
import { type BitcoinTestNode, deriveTestAddresses, startBitcoinTestNode } from "@mp/test-nodes/bitcoin";
import { Block, crypto, script, Transaction } from "bitcoinjs-lib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createBitcoinAdapter } from "../src/bitcoin-adapter.ts";

/** The Bitcoin test node: real encodings and Bitcoin Core's JSON-RPC behaviour. */

let node: BitcoinTestNode;

function rpcEndpoint(target: BitcoinTestNode): { endpoint: string; authorization: string } {
  const url = new URL(target.url);
  const authorization = `Basic ${Buffer.from(`${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`).toString("base64")}`;
  return { endpoint: `http://127.0.0.1:${target.port}/`, authorization };
}

async function post(body: string, target = node, headers: Record<string, string> = {}) {
  const { endpoint, authorization } = rpcEndpoint(target);
  const response = await fetch(endpoint, { method: "POST", headers: { authorization, ...headers }, body });
  const text = await response.text();
  return { status: response.status, text, json: text === "" ? undefined : parseJsonExact(text) };
}

async function call(method: string, params: unknown[] | Record<string, unknown> = [], target = node): Promise<unknown> {
  const { json } = await post(JSON.stringify({ jsonrpc: "1.0", id: 1, method, params }), target);
  const reply = json as { result: unknown; error: { message: string } | null };
  if (reply.error) throw new Error(reply.error.message);
  return reply.result;
}

beforeAll(async () => {
  node = await startBitcoinTestNode();
});

afterAll(async () => {
  await node.stop();
});

describe("real encodings", () => {
  it("blocks are valid: merkle root, witness commitment, proof of work, BIP-34 height, header hash", async () => {
    const [to] = deriveTestAddresses(1);
    node.sendOutputs([{ address: String(to), amount: 25_000n }]);
    const [hash] = node.mine(1);
    const block = Block.fromHex(String(await call("getblock", [hash, 0])));
    expect(block.getId()).toBe(hash);
    expect(block.checkTxRoots()).toBe(true);
    expect(block.hasWitnessCommit()).toBe(true);
    expect(block.checkProofOfWork()).toBe(true);
    const coinbase = block.transactions?.[0];
    const heightPush = script.decompile(coinbase?.ins[0]?.script ?? new Uint8Array())?.[0];
    expect(heightPush).toBeInstanceOf(Uint8Array);
    expect(script.number.decode(heightPush as Uint8Array)).toBe(node.height);
    const header = String(await call("getblockheader", [hash, false]));
    expect(header).toHaveLength(160);
    expect(
      Buffer.from(crypto.hash256(Buffer.from(header, "hex")))
        .reverse()
        .toString("hex"),
    ).toBe(hash);
  });

  it("wallet transactions carry valid P2WPKH signatures over the spent amounts", async () => {
    const [to] = deriveTestAddresses(1);
    const { txid } = node.send(String(to), 40_000n);
    const [hash] = node.mine(1);
    const block = Block.fromHex(String(await call("getblock", [hash, 0])));
    const tx = block.transactions?.find((candidate) => candidate.getId() === txid);
    expect(tx).toBeDefined();
    for (const [index, input] of (tx as Transaction).ins.entries()) {
      const prevTxid = Buffer.from(input.hash).reverse().toString("hex");
      const prevOut = await findOutput(prevTxid, input.index);
      const [signature, publicKey] = input.witness as [Uint8Array, Uint8Array];
      expect(Buffer.from(crypto.hash160(publicKey)).toString("hex")).toBe(
        Buffer.from(prevOut.script.subarray(2)).toString("hex"),
      );
      const scriptCode = Uint8Array.from([0x76, 0xa9, 0x14, ...prevOut.script.subarray(2), 0x88, 0xac]);
      const sighash = (tx as Transaction).hashForWitnessV0(index, scriptCode, prevOut.value, Transaction.SIGHASH_ALL);
      const decoded = script.signature.decode(signature);
      expect(ecc.verify(sighash, publicKey, decoded.signature)).toBe(true);
    }
  });

  it("amounts sent over RPC are exact to the satoshi", async () => {
    const [to] = deriveTestAddresses(1);
    const body = `{"jsonrpc":"1.0","id":9,"method":"sendtoaddress","params":["${to}",0.29]}`;
    const { json } = await post(body);
    const txid = (json as { result: string }).result;
    const [hash] = node.mine(1);
    const block = (await call("getblock", [hash, 2])) as { tx: { txid: string; vout: { value: string }[] }[] };
    expect(block.tx.find((tx) => tx.txid === txid)?.vout[0]?.value).toBe("0.29000000");
  });
});

async function findOutput(txid: string, vout: number): Promise<{ script: Uint8Array; value: bigint }> {
  for (let height = node.height; height > 0; height--) {
    const block = Block.fromHex(String(await call("getblock", [node.blockHash(height), 0])));
    const tx = block.transactions?.find((candidate) => candidate.getId() === txid);
    const output = tx?.outs[vout];
    if (output) return output;
  }
  throw new Error(`output ${txid}:${vout} not found`);
}

describe("JSON-RPC like Bitcoin Core", () => {
  it("answers JSON-RPC 2.0 with HTTP 200 even for errors, and legacy errors with HTTP 500/404", async () => {
    const ok2 = await post('{"jsonrpc":"2.0","id":"a","method":"getblockcount","params":[]}');
    expect(ok2).toMatchObject({ status: 200, json: { jsonrpc: "2.0", result: node.height, id: "a" } });
    const err2 = await post('{"jsonrpc":"2.0","id":2,"method":"getblockhash","params":[99999]}');
    expect(err2).toMatchObject({
      status: 200,
      json: { jsonrpc: "2.0", error: { code: -8, message: "Block height out of range" }, id: 2 },
    });
    const err1 = await post(`{"jsonrpc":"1.0","id":3,"method":"getblock","params":["${"00".repeat(32)}"]}`);
    expect(err1).toMatchObject({
      status: 500,
      json: { result: null, error: { code: -5, message: "Block not found" }, id: 3 },
    });
    const missing = await post('{"id":4,"method":"getbalance","params":[]}');
    expect(missing).toMatchObject({ status: 404, json: { error: { code: -32601 } } });
  });

  it("answers a batch in one HTTP 200 with per-call results and errors", async () => {
    const { status, json } = await post(
      '[{"jsonrpc":"1.0","id":1,"method":"getblockhash","params":[0]},{"jsonrpc":"1.0","id":2,"method":"getblockhash","params":[-1]}]',
    );
    expect(status).toBe(200);
    expect(json).toEqual([
      { result: node.blockHash(0), error: null, id: 1 },
      { result: null, error: { code: -8, message: "Block height out of range" }, id: 2 },
    ]);
  });

  it("accepts named parameters and rejects wrong types and malformed hashes", async () => {
    expect(await call("getblockhash", { height: 1 })).toBe(node.blockHash(1));
    await expect(call("getblockhash", ["1"])).rejects.toThrow(
      "JSON value of type string is not of expected type number",
    );
    await expect(call("getblock", ["xyz"])).rejects.toThrow("blockhash must be of length 64 (not 3, for 'xyz')");
  });

  it("requires POST and valid basic auth, and reports parse errors", async () => {
    const { endpoint, authorization } = rpcEndpoint(node);
    expect((await fetch(endpoint, { headers: { authorization } })).status).toBe(405);
    const unauthorized = await fetch(endpoint, { method: "POST", body: "{}" });
    expect(unauthorized.status).toBe(401);
    expect(unauthorized.headers.get("www-authenticate")).toBe('Basic realm="jsonrpc"');
    expect(await post("{not json")).toMatchObject({ status: 500, json: { error: { code: -32700 } } });
    expect((await post('{"jsonrpc":"2.0","method":"getblockcount"}')).status).toBe(204);
  });

  it("serves getblock verbosity 1 and getblockheader in Core's field order", async () => {
    const hash = node.blockHash(node.height);
    const { text } = await post(`{"id":1,"method":"getblock","params":["${hash}",1]}`);
    const result = (parseJsonExact(text) as { result: Record<string, unknown> }).result;
    expect(Object.keys(result)).toEqual([
      "hash",
      "confirmations",
      "height",
      "version",
      "versionHex",
      "merkleroot",
      "time",
      "mediantime",
      "nonce",
      "bits",
      "difficulty",
      "chainwork",
      "nTx",
      "previousblockhash",
      "strippedsize",
      "size",
      "weight",
      "tx",
    ]);
    expect(result).toMatchObject({ confirmations: 1, bits: "207fffff", difficulty: "4.656542373906925e-10" });
    expect(result.chainwork).toBe((2 * (node.height + 1)).toString(16).padStart(64, "0"));
    const header = (await call("getblockheader", [node.blockHash(node.height - 1)])) as Record<string, unknown>;
    expect(header).toMatchObject({ confirmations: 2, nextblockhash: hash });
  });

  it("keeps a block that left the active chain: confirmations -1, no next block", async () => {
    node.mine(1);
    const stale = node.blockHash(node.height);
    node.reorg(1);
    const block = (await call("getblock", [stale, 1])) as Record<string, unknown>;
    expect(block.confirmations).toBe(-1);
    expect(block).not.toHaveProperty("nextblockhash");
    expect(node.blockHash(node.height)).not.toBe(stale);
  });

  // Regtest: 50 BTC per coinbase, mature for consensus after 100 blocks (the wallet waits 101).
  // Premined to height 100 and mined to 103, the wallet holds coinbases of heights 1..3; 120 BTC needs
  // all three and is mined at 104. On a branch replacing 101..104, the coinbase of height 3 cannot be
  // spent before height 103.
  const spendYoungCoinbase = async (target: BitcoinTestNode) => {
    target.mine(3);
    const [to] = deriveTestAddresses(1);
    const { txid } = target.send(String(to), 12_000_000_000n);
    target.mine(1);
    expect(await blockTxids(target, 104)).toContain(txid);
    return txid;
  };
  const blockTxids = async (target: BitcoinTestNode, height: number) =>
    ((await call("getblock", [target.blockHash(height), 1], target)) as { tx: string[] }).tx;

  it("a reorg holds back a kept transaction whose coinbase input is not mature at its new height", async () => {
    const fresh = await startBitcoinTestNode({ premineBlocks: 100 });
    try {
      const txid = await spendYoungCoinbase(fresh);
      const { added } = fresh.reorg(4);
      expect(added).toHaveLength(4);
      expect(await blockTxids(fresh, 101)).not.toContain(txid);
      expect(await blockTxids(fresh, 102)).not.toContain(txid);
      expect(await blockTxids(fresh, 103)).toContain(txid);
    } finally {
      await fresh.stop();
    }
  });

  it("a reorg whose new branch stays too short evicts that transaction, as Core's mempool does", async () => {
    const fresh = await startBitcoinTestNode({ premineBlocks: 100 });
    try {
      const txid = await spendYoungCoinbase(fresh);
      fresh.reorg(4, { blocks: 1 });
      expect(fresh.height).toBe(101);
      expect(await blockTxids(fresh, 101)).not.toContain(txid);
      expect(fresh.mempool()).not.toContain(txid);
    } finally {
      await fresh.stop();
    }
  });
});

describe("getrawtransaction with and without -txindex", () => {
  /** The JSON-RPC error of a call (Core's code and text), or undefined when it succeeded. */
  async function failure(method: string, params: unknown[], target: BitcoinTestNode) {
    const { json } = await post(JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }), target);
    return (json as { error?: { code: number; message: string } }).error;
  }

  it("by default (Core's, no -txindex) finds a mined transaction only with its block's hash", async () => {
    expect(node.txindex).toBe(false);
    const [to] = deriveTestAddresses(1, "regtest", "no-txindex");
    const { txid } = node.send(String(to), 30_000n);
    expect(((await call("getrawtransaction", [txid, true])) as { txid: string }).txid).toBe(txid);
    const [hash] = node.mine(1);
    expect(await failure("getrawtransaction", [txid, true], node)).toEqual({
      code: -5,
      message:
        "No such mempool transaction. Use -txindex or provide a block hash to enable blockchain transaction queries. Use gettransaction for wallet transactions.",
    });
    const found = (await call("getrawtransaction", [txid, true, hash])) as Record<string, unknown>;
    expect(found).toMatchObject({ in_active_chain: true, txid, blockhash: hash, confirmations: 1 });
    expect(node.blockOf(txid)).toBe(hash);
    expect(await call("getindexinfo")).toEqual({});
  });

  it("with txindex: true finds it without a blockhash, and says so in getindexinfo", async () => {
    const indexed = await startBitcoinTestNode({ txindex: true });
    try {
      const [to] = deriveTestAddresses(1, "regtest", "txindex");
      const { txid } = indexed.send(String(to), 30_000n);
      const [hash] = indexed.mine(1);
      const found = (await call("getrawtransaction", [txid, true], indexed)) as Record<string, unknown>;
      expect(found).toMatchObject({ txid, blockhash: hash, confirmations: 1 });
      expect(found.in_active_chain).toBeUndefined();
      expect(await failure("getrawtransaction", ["00".repeat(32), true], indexed)).toEqual({
        code: -5,
        message: "No such mempool or blockchain transaction. Use gettransaction for wallet transactions.",
      });
      expect(await call("getindexinfo", [], indexed)).toEqual({
        txindex: { synced: true, best_block_height: indexed.height },
      });
    } finally {
      await indexed.stop();
    }
  });
});

describe("wallet and mining", () => {
  it("coinbase rewards are spendable only after 100 confirmations", async () => {
    const fresh = await startBitcoinTestNode({ premineBlocks: 100 });
    try {
      const [to] = deriveTestAddresses(1);
      await expect(call("sendtoaddress", [to, 1], fresh)).rejects.toThrow("Insufficient funds");
      fresh.mine(1);
      expect(await call("sendtoaddress", [to, 1], fresh)).toMatch(/^[0-9a-f]{64}$/);
    } finally {
      await fresh.stop();
    }
  });

  it("generatetoaddress and getnewaddress behave like a regtest wallet", async () => {
    const address = String(await call("getnewaddress"));
    expect(address).toMatch(/^bcrt1q/);
    const hashes = (await call("generatetoaddress", [2, address])) as string[];
    expect(hashes).toEqual([node.blockHash(node.height - 1), node.blockHash(node.height)]);
    await expect(call("generatetoaddress", [1, "not-an-address"])).rejects.toThrow("Error: Invalid address");
  });

  it("mines on a timer when blockIntervalMs is set", async () => {
    const timed = await startBitcoinTestNode({ blockIntervalMs: 20 });
    try {
      const start = timed.height;
      const deadline = Date.now() + 60_000; // generous: a loaded machine's timers fire late
      while (timed.height < start + 3 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
      expect(timed.height).toBeGreaterThanOrEqual(start + 3);
    } finally {
      await timed.stop();
    }
  });

  it.each([
    ["mainnet", "main", "bc1q"],
    ["testnet", "test", "tb1q"],
  ] as const)(
    "a %s node encodes addresses for that network and the adapter finds deposits",
    async (network, chainName, prefix) => {
      const other = await startBitcoinTestNode({ network, premineBlocks: 101 });
      try {
        expect(((await call("getblockchaininfo", [], other)) as { chain: string }).chain).toBe(chainName);
        const [to] = deriveTestAddresses(1, network);
        expect(to?.startsWith(prefix)).toBe(true);
        const { txid } = other.send(String(to), 5_000n);
        other.mine(1);
        const adapter = createBitcoinAdapter(resolveChainConfig("BITCOIN", { rpcUrl: other.url, network }));
        const transfers = await adapter.scan({ from: other.height, to: other.height }, new Set([String(to)]));
        expect(transfers).toMatchObject([{ txHash: txid, to, amountRaw: 5_000n }]);
      } finally {
        await other.stop();
      }
    },
  );
});
