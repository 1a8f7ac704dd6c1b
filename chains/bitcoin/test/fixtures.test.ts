import { readFileSync } from "node:fs";
import { bitcoinNetwork } from "@mp/bitcoin-protocol";
import { type AddressMatcher, ChainMisconfiguredError, resolveChainConfig } from "@mp/core";
import { parseJsonExact } from "@mp/rpc";
import { Block, Transaction } from "bitcoinjs-lib";
import { describe, expect, it } from "vitest";
import { createBitcoinAdapter } from "../src/bitcoin-adapter.ts";
import { transfersInBlock, transfersInTransaction } from "../src/block-transfers.ts";
import { blockHeaderSchema, blockSchema, type RpcTransaction, transactionSchema } from "../src/rpc-schemas.ts";

/** Recorded real Bitcoin Core answers (see fixtures/SOURCE.md) through the adapter's parsing. */

const read = (name: string): string => readFileSync(new URL(`./fixtures/${name}`, import.meta.url), "utf8");
const REGTEST_406 = read("regtest-block-406.getblock-verbosity2.json");
const MAINNET_170 = read("mainnet-block-170.getblock-verbosity2.json");
const TX_800000 = read("mainnet-block-800000.tx-b2088e44.json");
const TX_RUNESTONE = read("mainnet-tx-7dae6489.decoderawtransaction.json");
const TX_RUNESTONE_HEX = read("mainnet-tx-7dae6489.getrawtransaction.hex").trim();
const HEADER_956471 = read("mainnet-block-956471.getblockheader.json");

const regtest = bitcoinNetwork("regtest");
const mainnet = bitcoinNetwork("mainnet");
const watchAll = (addresses: string[]) => new Set(addresses);
/** The deposits of a mainnet transaction found in `block`. */
const inMainnetBlock = (tx: RpcTransaction, block: { height: number; hash: string }, watch: AddressMatcher) =>
  transfersInTransaction(tx, {
    chain: "BITCOIN",
    network: mainnet,
    blockHeight: block.height,
    blockHash: block.hash,
    watch,
  });

function headerHash(
  fields: { version: number; time: number; bits: string; nonce: number },
  prev: string,
  merkle: string,
) {
  const block = new Block();
  block.version = fields.version;
  block.prevHash = Buffer.from(prev, "hex").reverse();
  block.merkleRoot = Buffer.from(merkle, "hex").reverse();
  block.timestamp = fields.time;
  block.bits = Number.parseInt(fields.bits, 16);
  block.nonce = fields.nonce;
  return block.getId();
}

describe("recorded responses are authentic", () => {
  it.each([
    ["regtest 406", REGTEST_406],
    ["mainnet 170", MAINNET_170],
  ])("%s: header hash, txids and merkle root recompute", (_name, text) => {
    const block = JSON.parse(text);
    expect(headerHash(block, block.previousblockhash, block.merkleroot)).toBe(block.hash);
    const txs = block.tx.map((tx: { hex: string }) => Transaction.fromHex(tx.hex));
    expect(txs.map((tx: Transaction) => tx.getId())).toEqual(block.tx.map((tx: { txid: string }) => tx.txid));
    expect(Buffer.from(Block.calculateMerkleRoot(txs)).reverse().toString("hex")).toBe(block.merkleroot);
  });

  it("block headers of mainnet 800,000 and 956,471 hash to their ids", () => {
    const header = JSON.parse(HEADER_956471);
    expect(headerHash(header, header.previousblockhash, header.merkleroot)).toBe(header.hash);
    expect(
      headerHash(
        { version: 874340352, time: 1690168629, bits: "17053894", nonce: 106861918 },
        "000000000000000000012117ad9f72c1c0e42227c2d042dca23e6b96bd9fbb55",
        "91f01a00530c8c83617190048ea8b0814d506cf24dfdbcf8893f8f0cab7f0855",
      ),
    ).toBe("00000000000000000002a7c4c1e48d76c5a37902165a270156b7a8d72728a054");
  });

  it("standalone transactions recompute their txids", () => {
    expect(Transaction.fromHex(JSON.parse(TX_800000).hex).getId()).toBe(JSON.parse(TX_800000).txid);
    expect(Transaction.fromHex(TX_RUNESTONE_HEX).getId()).toBe(JSON.parse(TX_RUNESTONE).txid);
  });
});

describe("parsing recorded getblock verbosity 2", () => {
  it("regtest block 406: one deposit per watched output, exact satoshis, coinbase and OP_RETURN ignored", () => {
    const block = blockSchema.parse(parseJsonExact(REGTEST_406));
    const watch = watchAll([
      "bcrt1qy4ncf09ssalpdhfv66ka374wu9s8jcykzty38u",
      "bcrt1qxqcfnx6tk79lmat8vau9vfquz440rm9ztdx9v7",
      // The coinbase reward address: never a deposit.
      "bcrt1q7n36a807k8fjwklngd0z2zgvu8r4c0vvttaxph",
    ]);
    const transfers = transfersInBlock(block, { chain: "BITCOIN", network: regtest, watch });
    const common = {
      txHash: "9536e1ed08a56b89e45a69d2ade2a84b1068d62a92997b5b6e084d7ef486042e",
      blockHeight: 406,
      blockHash: "2116cb4ddde5b503d418595cfdb7dc03725b5776a68e4bf625fa00cf362e89c1",
      from: null,
      asset: "BTC",
      contractAddress: null,
      decimals: 8,
    };
    expect(transfers).toEqual([
      { ...common, position: "vout:0", to: "bcrt1qy4ncf09ssalpdhfv66ka374wu9s8jcykzty38u", amountRaw: 49_993_020n },
      { ...common, position: "vout:1", to: "bcrt1qxqcfnx6tk79lmat8vau9vfquz440rm9ztdx9v7", amountRaw: 50_000_000n },
    ]);
  });

  it("regtest block 406: unwatched outputs give nothing", () => {
    const block = blockSchema.parse(parseJsonExact(REGTEST_406));
    const watch = watchAll(["bcrt1qysequ95gdwaawvwm3uwtwc3wckz9ldv44rt3dc"]);
    expect(transfersInBlock(block, { chain: "BITCOIN", network: regtest, watch })).toEqual([]);
  });

  it("refuses a node of another network than configured instead of silently missing deposits", () => {
    const block = blockSchema.parse(parseJsonExact(REGTEST_406));
    expect(() => transfersInBlock(block, { chain: "BITCOIN", network: mainnet, watch: new Set() })).toThrow(
      ChainMisconfiguredError,
    );
  });

  it("mainnet block 170 (old Core shape, P2PK outputs without address) parses and yields no deposits", () => {
    const block = blockSchema.parse(parseJsonExact(MAINNET_170));
    expect(block.tx[1]?.vout.map((output) => output.value)).toEqual([1_000_000_000n, 4_000_000_000n]);
    expect(transfersInBlock(block, { chain: "BITCOIN", network: mainnet, watch: { has: () => true } })).toEqual([]);
  });

  it("mainnet block 800,000 transaction with exponent-notation amounts", () => {
    const tx = transactionSchema.parse(parseJsonExact(TX_800000));
    const block = { height: 800_000, hash: "00000000000000000002a7c4c1e48d76c5a37902165a270156b7a8d72728a054" };
    expect(inMainnetBlock(tx, block, watchAll(["bc1qj4y63fupgnd5j2ldh0jhhxf585p5h7hm0gzjfc"]))).toMatchObject([
      { position: "vout:0", to: "bc1qj4y63fupgnd5j2ldh0jhhxf585p5h7hm0gzjfc", amountRaw: 499_441n },
    ]);
  });

  it("mainnet runestone transaction: the P2WPKH output is a deposit, the OP_RETURN is not", () => {
    const tx = transactionSchema.parse(parseJsonExact(TX_RUNESTONE));
    const block = { height: 856_742, hash: "00".repeat(32) };
    expect(inMainnetBlock(tx, block, { has: () => true })).toMatchObject([
      { position: "vout:0", to: "bc1qc0clqxxfjvvquenadlx9rtcqx63c49ef0pfw29", amountRaw: 4974n },
    ]);
  });

  it("getblockheader of mainnet 956,471 validates", () => {
    const header = blockHeaderSchema.parse(parseJsonExact(HEADER_956471));
    expect(header).toMatchObject({
      height: 956_471,
      previousblockhash: "00000000000000000001ec048885e8386fd3d5b1f56248214e40586b57f80691",
    });
  });
});

describe("the adapter over a recorded response served as raw HTTP text", () => {
  it("scans regtest block 406 end to end", async () => {
    const replies: Record<string, string> = {
      getblockchaininfo: '{"chain":"regtest"}',
      getblockhash: '"2116cb4ddde5b503d418595cfdb7dc03725b5776a68e4bf625fa00cf362e89c1"',
      getblock: REGTEST_406,
    };
    const seenAuth: (string | null)[] = [];
    const fetchRecorded = async (_url: string, init: RequestInit) => {
      seenAuth.push(new Headers(init.headers).get("authorization"));
      const calls = JSON.parse(String(init.body)) as { id: number; method: string }[];
      const body = `[${calls.map((call) => `{"result":${replies[call.method]},"error":null,"id":${call.id}}`).join(",")}]`;
      return new Response(body, { status: 200 });
    };
    const config = resolveChainConfig("BITCOIN", { rpcUrl: "http://alice:s3cret@127.0.0.1:18443", network: "regtest" });
    const adapter = createBitcoinAdapter(config, { fetch: fetchRecorded });
    const transfers = await adapter.scan(
      { from: 406, to: 406 },
      watchAll(["bcrt1qxqcfnx6tk79lmat8vau9vfquz440rm9ztdx9v7"]),
    );
    expect(transfers).toMatchObject([{ position: "vout:1", amountRaw: 50_000_000n, blockHeight: 406 }]);
    expect(seenAuth.every((auth) => auth === `Basic ${Buffer.from("alice:s3cret").toString("base64")}`)).toBe(true);
  });
});
