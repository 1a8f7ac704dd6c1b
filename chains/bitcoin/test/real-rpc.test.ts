import { bitcoinNetwork } from "@mp/bitcoin-protocol";
import { ChainMisconfiguredError, resolveChainConfig } from "@mp/core";
import { parseJsonExact, RpcAnswerError } from "@mp/rpc";
import { REAL_RPC_MISSING, realRpcAvailable, realRpcText } from "@mp/test-nodes/real-rpc";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { transfersInTransaction } from "../src/block-transfers.ts";
import { createBitcoinAdapter } from "../src/index.ts";
import { blockCountSchema, blockchainInfoSchema, blockHashSchema, transactionSchema } from "../src/rpc-schemas.ts";

/**
 * Fidelity: real Bitcoin Core answers (../shared/fixtures/real-rpc, see its SOURCES.md) through the
 * adapter's own transport, exact-number parser, schemas and deposit extraction.
 */

const result = (name: string): unknown => {
  const parsed = parseJsonExact(realRpcText(name));
  const envelope = z.object({ result: z.unknown(), error: z.null() }).safeParse(parsed);
  return envelope.success ? envelope.data.result : parsed;
};
const watchAll = (addresses: string[]) => new Set(addresses);
const mainnet = bitcoinNetwork("mainnet");

/**
 * A node that answers only from recorded blocks (raw text, so the exact parser reads the recorded
 * bytes), with the recorded getblockchaininfo: getblockhash and getblockheader come from the
 * recorded blocks themselves.
 */
function recordedNode(blockFiles: string[]): typeof globalThis.fetch {
  const blocks = blockFiles.map((file) => {
    const text = realRpcText(file);
    const block = z
      .object({ hash: z.string(), height: z.number(), previousblockhash: z.string(), confirmations: z.number() })
      .partial({ confirmations: true })
      .parse(parseJsonExact(text));
    return { text, ...block };
  });
  const answer = (method: string, params: unknown[]): string => {
    switch (method) {
      case "getblockchaininfo":
        return realRpcText("bitcoin-getblockchaininfo-1.json");
      case "getblockhash":
        return JSON.stringify(blocks.find((block) => block.height === params[0])?.hash ?? null);
      case "getblock":
        return blocks.find((block) => block.hash === params[0])?.text ?? "null";
      case "getblockheader": {
        const block = blocks.find((candidate) => candidate.hash === params[0]);
        const { text: _text, ...header } = block ?? {};
        return JSON.stringify(header);
      }
      default:
        throw new Error(`the recorded node has no ${method}`);
    }
  };
  return async (_input, init) => {
    const calls = z.array(z.object({ id: z.number(), method: z.string(), params: z.array(z.unknown()) }));
    const body = calls
      .parse(JSON.parse(String(init?.body)))
      .map((call) => `{"result":${answer(call.method, call.params)},"error":null,"id":${call.id}}`);
    return new Response(`[${body.join(",")}]`);
  };
}

const mainnetAdapter = (blockFiles: string[]) =>
  createBitcoinAdapter(
    resolveChainConfig("BITCOIN", { rpcUrl: "http://user:pass@127.0.0.1:8332", network: "mainnet" }),
    {
      fetch: recordedNode(blockFiles),
    },
  );

describe.skipIf(!realRpcAvailable)(
  `Bitcoin real-rpc fidelity${realRpcAvailable ? "" : ` (${REAL_RPC_MISSING})`}`,
  () => {
    it("reads block 50001 in the pre-22.0 form (scriptPubKey.addresses[]) end to end: network, hash, header", async () => {
      const adapter = mainnetAdapter(["bitcoin-getblock-v2-2.json"]);
      await expect(adapter.verifyNetwork()).resolves.toBeUndefined(); // getblockchaininfo-1: "main"
      const hash = blockHashSchema.parse(result("bitcoin-getblockhash-1.json"));
      await expect(adapter.headers({ from: 50001, to: 50001 })).resolves.toEqual([
        {
          height: 50001,
          hash,
          parentHash: "000000001aeae195809d120b5d66a39c83eb48792e068f8ea1fea19d84a4278a",
        },
      ]);
      // P2PK/P2PKH outputs only: a receive address of ours (P2WPKH) cannot be paid here.
      await expect(adapter.scan({ from: 50001, to: 50001 }, { has: () => true })).resolves.toEqual([]);
    });

    it("reads block 696402 in the current form (scriptPubKey.address) end to end", async () => {
      const adapter = mainnetAdapter(["bitcoin-getblock-v2-1.json"]);
      await expect(adapter.scan({ from: 696402, to: 696402 }, { has: () => true })).resolves.toEqual([]);
    });

    it("refuses, retryably, a block whose transactions lack vout (the trimmed block 696402), never half-reads it", async () => {
      const adapter = mainnetAdapter(["bitcoin-getblock-v2-3.json"]);
      const error = await adapter.scan({ from: 696402, to: 696402 }, { has: () => true }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(RpcAnswerError);
      expect(error).toMatchObject({ retryable: true });
    });

    it("finds the P2WPKH output (address form) of the trimmed block's third transaction, exactly", () => {
      const block = z.object({ tx: z.array(z.unknown()) }).parse(result("bitcoin-getblock-v2-3.json"));
      const tx = transactionSchema.parse(block.tx[2]);
      const to = "bc1qz7ukk7kwkqy75gzu6mxr7ptfycx837rpu68qqz";
      const where = { chain: "BITCOIN" as const, network: mainnet, blockHeight: 696402, blockHash: "h" };
      expect(transfersInTransaction(tx, { ...where, watch: watchAll([to]) })).toMatchObject([
        { txHash: tx.txid, position: "vout:1", to, amountRaw: 3_683_063n, decimals: 8 },
      ]);
    });

    it("reads both P2WPKH outputs of a hash-verified mainnet transaction, to the satoshi", () => {
      const tx = transactionSchema.parse(result("bitcoin-getrawtransaction-1.json"));
      const a = "bc1q4lwvx2380r4axmzgt8rnqxa5cvktt8unqlnka6";
      const b = "bc1qeswkgjxks7dnufsg98v6x9chh6mhyxrwrvdktf";
      const context = {
        chain: "BITCOIN" as const,
        network: mainnet,
        blockHeight: 1,
        blockHash: "h",
        watch: watchAll([a, b]),
      };
      expect(transfersInTransaction(tx, context).map((t) => [t.position, t.to, t.amountRaw])).toEqual([
        ["vout:0", a, 555n],
        ["vout:3", b, 345_194n],
      ]);
    });

    it("reads a testnet verbosity-2 transaction (with prevout and fee) on testnet, and refuses it on mainnet", () => {
      const tx = transactionSchema.parse(result("bitcoin-testnet-getrawtransaction-v2-1.json"));
      const to = "tb1qswslzcdulvlk62gdrg8wa0sw36f938h2pyfreh";
      const base = { chain: "BITCOIN" as const, blockHeight: 1, blockHash: "h", watch: watchAll([to]) };
      expect(transfersInTransaction(tx, { ...base, network: bitcoinNetwork("testnet") })).toMatchObject([
        { position: "vout:0", to, amountRaw: 6_263n },
      ]);
      expect(() => transfersInTransaction(tx, { ...base, network: mainnet })).toThrow(ChainMisconfiguredError);
    });

    it("reads getblockchaininfo (Core 0.14 and a Bitcoin Cash node), getblockcount and getblockhash envelopes", () => {
      expect(blockchainInfoSchema.parse(result("bitcoin-getblockchaininfo-1.json")).chain).toBe("main");
      // Recorded from a Bitcoin Cash node (see SOURCES.md): read for its shape only.
      expect(blockchainInfoSchema.parse(result("bitcoincash-getblockchaininfo-1.json")).chain).toBe("main");
      expect(blockCountSchema.parse(result("bitcoincash-getblockcount-1.json"))).toBe(684_634);
      expect(blockHashSchema.parse(result("bitcoin-getblockhash-2.json"))).toBe(
        "00000000c937983704a73af28acdec37b049d214adbda81d7e2a3dd146f6ed09",
      );
    });
  },
);
