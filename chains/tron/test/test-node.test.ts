import { createHash } from "node:crypto";
import { startTronTestNode, TronKey, type TronTestNode } from "@mp/test-nodes/tron";
import { utils } from "tronweb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

let node: TronTestNode;
beforeAll(async () => {
  node = await startTronTestNode({ seed: "test-node-test" });
});
afterAll(async () => {
  await node.stop();
});

async function post(path: string, body: unknown): Promise<unknown> {
  const response = await fetch(`${node.url}${path}`, { method: "POST", body: JSON.stringify(body) });
  return response.json();
}

describe("Tron test node", () => {
  it("serves blocks in java-tron's shapes: genesis without number, empty blocks without transactions", async () => {
    const genesis = (await post("/wallet/getblockbynum", { num: 0 })) as { block_header: { raw_data: object } };
    expect(genesis.block_header.raw_data).not.toHaveProperty("number");
    const [height] = node.mine();
    const empty = await post("/wallet/getblockbynum", { num: height });
    expect(empty).not.toHaveProperty("transactions");
    expect(await post("/wallet/gettransactioninfobyblocknum", { num: height })).toEqual([]);
    expect(await post("/wallet/gettransactioninfobyblocknum", { num: 0 })).toEqual({});
    expect(await post("/wallet/getblockbynum", { num: 10_000 })).toEqual({});
    expect(await post("/wallet/getblockbylimitnext", { startNum: 0, endNum: 101 })).toEqual({});
    expect(await post("/wallet/getblockbynum", { num: "x" })).toHaveProperty("Error");
  });

  it("signs real transactions: txID = sha256(raw_data_hex), signature recovers the sender", async () => {
    const to = TronKey.fromLabel("test-node-recipient").address;
    const txID = node.transfer(to, 1_000_000n);
    const [height] = node.mine();
    const block = (await post("/wallet/getblockbynum", { num: height })) as {
      transactions: Array<{
        txID: string;
        raw_data_hex: string;
        signature: string[];
        raw_data: { contract: unknown[] };
      }>;
    };
    const [tx] = block.transactions;
    expect(tx?.txID).toBe(txID);
    expect(
      createHash("sha256")
        .update(Buffer.from(tx?.raw_data_hex ?? "", "hex"))
        .digest("hex"),
    ).toBe(txID);
    const signer = utils.crypto.ecRecover(`0x${txID}`, `0x${tx?.signature[0]}`);
    expect(
      utils.crypto.getBase58CheckAddress([...Buffer.from(`41${signer.replace(/^0x/, "").slice(-40)}`, "hex")]),
    ).toBe(node.faucetAddress);
    expect(node.balance(to)).toBe(1_000_000n);
  });

  it("keeps its state and port across stop and restart", async () => {
    const head = node.head();
    await node.stop();
    await expect(fetch(`${node.url}/wallet/getnowblock`, { method: "POST" })).rejects.toThrow();
    await node.restart();
    const now = (await post("/wallet/getnowblock", {})) as { block_header: { raw_data: { number: number } } };
    expect(now.block_header.raw_data.number).toBe(head);
  });

  it("produces blocks on a timer when asked", async () => {
    const timed = await startTronTestNode({ blockIntervalMs: 50 });
    try {
      // Polled up to a generous bound, not slept for 300 ms: a loaded machine's timers fire late.
      const deadline = Date.now() + 60_000;
      while (timed.head() < 2 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
      expect(timed.head()).toBeGreaterThanOrEqual(2);
    } finally {
      await timed.stop();
    }
  });
});
