import { resolveChainConfig } from "@mp/core";
import { REAL_RPC_MISSING, realRpcAvailable, realRpcText } from "@mp/test-nodes/real-rpc";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { resolveEvmAssets } from "../src/evm-assets.ts";
import { createEvmAdapter } from "../src/index.ts";
import { nativeTransferCandidates, receiptOutcome } from "../src/native-transfers.ts";
import { fullBlockSchema, logsSchema, receiptSchema } from "../src/rpc-schemas.ts";
import { matchTransferLog } from "../src/transfer-logs.ts";

/**
 * Fidelity: real EVM node answers (../shared/fixtures/real-rpc, see its SOURCES.md): Parity-era
 * Ethereum blocks, logs and a pre-Byzantium receipt, and modern BSC logs, through viem's transport
 * and the adapter's schemas and matchers.
 */

const envelope = z.object({ result: z.unknown() });
const result = (name: string): unknown => envelope.parse(JSON.parse(realRpcText(name))).result;

const TOKEN = "0xf4eced2f682ce333f96f2d8966c613ded8fc95dd";
const BLOCK_483920 = "0x246edb4b351d93c27926f4649bcf6c24366e2a7c7c718dc9158eea20c03bc6ae";
const ethereum = resolveChainConfig("ETHEREUM", {
  rpcUrl: "http://eth.invalid",
  tokens: [{ asset: "TKN", address: TOKEN, decimals: 0 }],
});

/** An Ethereum node knowing block 483920 (recorded with full transactions) and its Transfer logs. */
const node483920: typeof globalThis.fetch = async (_input, init) => {
  const request = z.object({ id: z.number(), method: z.string(), params: z.array(z.unknown()) });
  const body: unknown = JSON.parse(String(init?.body));
  const answer = (call: z.infer<typeof request>) => {
    const recorded =
      call.method === "eth_getBlockByNumber" && call.params[0] === "0x76250"
        ? result("evm-getBlockByNumber-1.json")
        : call.method === "eth_getLogs"
          ? result("evm-getLogs-1.json")
          : null;
    return { jsonrpc: "2.0", id: call.id, result: recorded };
  };
  const answers = Array.isArray(body) ? body.map((item) => answer(request.parse(item))) : answer(request.parse(body));
  return new Response(JSON.stringify(answers), { headers: { "content-type": "application/json" } });
};

describe.skipIf(!realRpcAvailable)(`EVM real-rpc fidelity${realRpcAvailable ? "" : ` (${REAL_RPC_MISSING})`}`, () => {
  it("scans block 483920 end to end: the two ERC-20 Transfer logs (Parity format, no `removed`)", async () => {
    const adapter = createEvmAdapter(ethereum, { fetch: node483920 });
    await expect(adapter.headers({ from: 483920, to: 483920 })).resolves.toEqual([
      {
        height: 483920,
        hash: BLOCK_483920,
        parentHash: expect.stringMatching(/^0x[0-9a-f]{64}$/),
      },
    ]);
    const watch = new Set(["0xac4df82fe37ea2187bc8c011a23d743b4f39019a", "0x66f183060253cfbe45beff1e6e7ebbe318c81e56"]);
    const found = await adapter.scan({ from: 483920, to: 483920 }, watch);
    expect(found.map((t) => [t.to.toLowerCase(), t.amountRaw, t.position, t.blockHash])).toEqual([
      ["0xac4df82fe37ea2187bc8c011a23d743b4f39019a", 100_000n, "log:0", BLOCK_483920],
      ["0x66f183060253cfbe45beff1e6e7ebbe318c81e56", 200_000n, "log:1", BLOCK_483920],
    ]);
  });

  it("finds the plain ETH payments of Parity blocks 483920 and 47218 as native candidates, exactly", () => {
    const assets = resolveEvmAssets(ethereum);
    const cases = [
      ["evm-getBlockByNumber-1.json", "0x743b8aeedc163c0e3a0fe9f3910d146c48e70da8", 1_530_219_620_000_000_000n],
      ["evm-getBlockByNumber-2.json", "0xa0e74ae010d51894734c308d612131056bb721ad", 110_000_000_000_000_000_000n],
    ] as const;
    for (const [file, to, amount] of cases) {
      const block = fullBlockSchema.parse(result(file));
      const found = nativeTransferCandidates(block, assets, new Set([to]));
      expect(found.map((c) => [c.transfer.to.toLowerCase(), c.transfer.amountRaw, c.transfer.asset])).toEqual([
        [to, amount, "ETH"],
      ]);
    }
  });

  it("a pre-Byzantium receipt (root, status null) proves no success: never a deposit", () => {
    const receipt = receiptSchema.parse(result("evm-getTransactionReceipt-1.json"));
    expect(receipt.blockHash).toBe(BLOCK_483920);
    expect(receiptOutcome(receipt)).toBe("unknown");
  });

  it("BSC BUSD logs (modern format with `removed`): every Transfer matched to the wei, other events ignored", () => {
    const busd = resolveEvmAssets(
      resolveChainConfig("BSC", {
        rpcUrl: "http://bsc.invalid",
        tokens: [{ asset: "BUSD", address: "0xe9e7cea3dedca5984780bafc599bd69add087d56", decimals: 18 }],
      }),
    );
    const logs = logsSchema.parse(result("evm-getLogs-2-bsc.json"));
    expect(logs).toHaveLength(11);
    const matched = logs.flatMap((log) => matchTransferLog(log, busd, { has: () => true }) ?? []);
    expect(matched.map((m) => m.transfer.amountRaw)).toEqual([
      298_288_547_486_664_359_936n,
      215_479_076_464_887_593_965n,
      930_676_365_280_000_000_000n,
      664_333_221_633_517_561_246n,
      664_333_221_633_517_561_246n,
      100_000_000_000_000_000_000n,
      299_795_566_184_753_645_700n,
      299_942_479_266_209_946_309n,
      100_000_000_000_000_000_000n,
    ]);
    expect(new Set(matched.map((m) => m.transfer.blockHeight))).toEqual(new Set([0x1b13c84]));
  });
});
