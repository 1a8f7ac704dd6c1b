import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { TronNode } from "../../../chains/tron/src/send/tron-node.ts";

/** Real java-tron answers recorded from public sources (see chains/tron/test/fixtures/SOURCE.md). */
const fixture = (name: string) =>
  readFileSync(new URL(`../../../chains/tron/test/fixtures/${name}`, import.meta.url), "utf8");

/** A node that answers each endpoint with a recorded body. */
const nodeAnswering = (answers: Record<string, string>) =>
  new TronNode({
    url: "http://tron.invalid",
    setting: "CHAINS_CONFIG.TRON.rpcUrl",
    fetch: async (input) => {
      const path = new URL(String(input)).pathname;
      const body = answers[path];
      return body === undefined ? new Response("not found", { status: 404 }) : new Response(body, { status: 200 });
    },
  });

describe("the Tron sender's reading of real node answers", () => {
  it("reads a recorded gettransactioninfobyid: block, burnt fee and receipt result", async () => {
    const node = nodeAnswering({
      "/wallet/gettransactioninfobyid": fixture("gettransactioninfobyid-01b4cde4.nile.tron-docs.json"),
    });
    await expect(
      node.transactionInfo("01b4cde4197b9d1a1ff09ef5d2b1d939d3ec2401b3f002ebd0802c0f30a6e4ca"),
    ).resolves.toMatchObject({
      id: "01b4cde4197b9d1a1ff09ef5d2b1d939d3ec2401b3f002ebd0802c0f30a6e4ca",
      blockNumber: 66985120,
      fee: 5254500,
      receipt: { result: "SUCCESS", energy_fee: 4458500, energy_usage_total: 44585 },
    });
    await expect(
      nodeAnswering({ "/wallet/gettransactioninfobyid": "{}" }).transactionInfo("00".repeat(32)),
    ).resolves.toBeNull();
  });

  it("reads a recorded block's id and header from getblockbynum and getnowblock", async () => {
    const block = fixture("getblockbynum-66987565.nile.tron-docs.json");
    const node = nodeAnswering({ "/wallet/getblockbynum": block, "/wallet/getnowblock": block });
    await expect(node.blockId(66987565)).resolves.toBe(
      "0000000003fe262d52bfa4b2814f816fd2e57af5b98a33d60d8630a03a908e0e",
    );
    await expect(node.head()).resolves.toMatchObject({ number: 66987565, timestamp: expect.any(Number) });
    await expect(nodeAnswering({ "/wallet/getblockbynum": "{}" }).blockId(1)).resolves.toBeNull();
  });
});
