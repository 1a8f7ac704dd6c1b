import { resolveChainConfig } from "@mp/core";
import { parseJsonExact } from "@mp/rpc";
import { REAL_RPC_MISSING, realRpcAvailable, realRpcText } from "@mp/test-nodes/real-rpc";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createTronAdapter, evmHexToBase58, hexToBase58 } from "../src/index.ts";

/**
 * Fidelity: real java-tron HTTP answers (../shared/fixtures/real-rpc, see its SOURCES.md) through
 * the adapter's transport, exact parser, schemas and extraction. The recorded blocks and
 * transaction infos come from different blocks, so each is paired with the smallest stand-in for
 * the other half: a recorded block with one `{id}` result per transaction (what a plain TRX
 * transfer's result holds), a recorded result with its transaction's id in a block shell.
 */

const ids = z.object({ transactions: z.array(z.object({ txID: z.string() })).optional() });
const infoIds = z.array(z.object({ id: z.string(), blockNumber: z.number() }));

/** A node serving one recorded block (and `/wallet/getnowblock`) with `{id}` results for its transactions. */
function servingBlock(file: string): typeof globalThis.fetch {
  const text = realRpcText(file);
  const txIds = (ids.parse(parseJsonExact(text)).transactions ?? []).map((tx) => tx.txID);
  return stand({ block: text, infos: JSON.stringify(txIds.map((id) => ({ id }))) });
}

/** A node serving recorded results (array text) for a block shell holding their transactions. */
function servingInfos(infosText: string): { fetch: typeof globalThis.fetch; height: number } {
  const infos = infoIds.parse(parseJsonExact(infosText));
  const height = infos[0]?.blockNumber ?? 0;
  const block = {
    blockID: `${height.toString(16).padStart(16, "0")}${"ab".repeat(24)}`,
    block_header: { raw_data: { number: height, parentHash: "00".repeat(32) } },
    transactions: infos.map((info) => ({
      txID: info.id,
      ret: [{ contractRet: "SUCCESS" }],
      raw_data: { contract: [{ type: "TriggerSmartContract", parameter: { value: {} } }] },
    })),
  };
  return { fetch: stand({ block: JSON.stringify(block), infos: infosText }), height };
}

function stand(answers: { block: string; infos: string }): typeof globalThis.fetch {
  return async (input) => {
    const path = new URL(String(input)).pathname;
    if (path === "/wallet/getblockbynum" || path === "/wallet/getnowblock") return new Response(answers.block);
    if (path === "/wallet/gettransactioninfobyblocknum") return new Response(answers.infos);
    return new Response("{}", { status: 404 });
  };
}

const adapter = (fetch: typeof globalThis.fetch, network: "mainnet" | "testnet" = "mainnet") =>
  createTronAdapter(resolveChainConfig("TRON", { rpcUrl: "http://tron.invalid", network }), { fetch });
const blockNumber = (file: string) =>
  z
    .object({ block_header: z.object({ raw_data: z.object({ number: z.number() }) }) })
    .parse(parseJsonExact(realRpcText(file))).block_header.raw_data.number;

describe.skipIf(!realRpcAvailable)(`Tron real-rpc fidelity${realRpcAvailable ? "" : ` (${REAL_RPC_MISSING})`}`, () => {
  it("a complete Nile block: head, and its four TRX transfers (TriggerSmartContract without a result: no token)", async () => {
    const nile = adapter(servingBlock("tron-getnowblock-1.json"), "testnet");
    await expect(nile.head()).resolves.toBe(46_929_239);
    const to = hexToBase58("4137a9511e294f1757678f366ad3b6102d35ebd4dc");
    const other = hexToBase58("414206ac4a5fe33602dc557b1352675d2ff1456222");
    const found = await nile.scan({ from: 46_929_239, to: 46_929_239 }, new Set([to, other]));
    expect(found.map((t) => [t.to, t.asset, t.amountRaw, t.position])).toEqual([
      [to, "TRX", 1000n, "native"],
      [to, "TRX", 1000n, "native"],
      [to, "TRX", 1000n, "native"],
      [other, "TRX", 100_000n, "native"],
    ]);
    expect(found[0]?.blockHash).toBe("0000000002cc15576e3142f7d82e5dddaa21d6c19c798bdbda2085dbb24e7fb1");
  });

  it("mainnet blocks from the API docs: 50 TRX and 1 sun, to the sun", async () => {
    for (const [file, to, amount] of [
      ["tron-getblockbynum-1.json", "4158c85b7b6a5118beb3b23c14fcb2f3551a81d79a", 50_000_000n],
      ["tron-getnowblock-2.json", "4162d0adca402b12e898b8d3a2debc77ce41c8ecc4", 1n],
    ] as const) {
      const height = blockNumber(file);
      const found = await adapter(servingBlock(file)).scan({ from: height, to: height }, new Set([hexToBase58(to)]));
      expect(found).toMatchObject([{ asset: "TRX", amountRaw: amount, blockHeight: height, from: expect.any(String) }]);
    }
  });

  it("USDT Transfer logs (address without the 41 prefix) of gettransactioninfobyblocknum and byid", async () => {
    for (const [text, to, amount] of [
      [
        realRpcText("tron-gettransactioninfobyblocknum-1.json"),
        "0d0707963952f2fba59dd06f2b425ace40b492fe",
        532_079_999n,
      ],
      [
        `[${realRpcText("tron-gettransactioninfobyid-1.json")}]`,
        "0d0707963952f2fba59dd06f2b425ace40b492fe",
        532_079_999n,
      ],
      [
        `[${realRpcText("tron-gettransactioninfobyid-2.json")}]`,
        "cdae4e9a6287333a3f7df432b050af7b17e79e63",
        3_500_000n,
      ],
    ] as const) {
      const { fetch, height } = servingInfos(text);
      const found = await adapter(fetch).scan({ from: height, to: height }, new Set([evmHexToBase58(to)]));
      expect(found).toMatchObject([
        { asset: "USDT", amountRaw: amount, position: "log:0", contractAddress: "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t" },
      ]);
    }
  });

  it("parses a call that ran OUT_OF_ENERGY (result FAILED, resMessage) and a plain transfer's result: no deposit", async () => {
    for (const file of ["tron-gettransactioninfobyid-3-failed.json", "tron-gettransactioninfobyid-4.json"]) {
      const { fetch, height } = servingInfos(`[${realRpcText(file)}]`);
      await expect(adapter(fetch).scan({ from: height, to: height }, { has: () => true })).resolves.toEqual([]);
    }
  });
});
