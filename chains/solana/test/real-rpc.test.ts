import { type ChainConfigInput, resolveChainConfig } from "@mp/core";
import { parseJsonExact } from "@mp/rpc";
import { REAL_RPC_MISSING, realRpcAvailable, realRpcText } from "@mp/test-nodes/real-rpc";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createSolanaAdapter } from "../src/index.ts";
import { getBlocksResultSchema } from "../src/rpc-schemas.ts";
import { stubSolanaRpc } from "./rpc-stub.ts";

/**
 * Fidelity: real mainnet getBlock answers (../shared/fixtures/real-rpc, see its SOURCES.md) served
 * as recorded text at one slot, read through the adapter's transport, exact parser, schemas and
 * extraction. The recorded blocks are abbreviated by their sources, never by us.
 */

const USDC = { asset: "USDC", address: "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v", decimals: 6 };
const USDT = { asset: "USDT", address: "Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB", decimals: 6 };
const WSOL = { asset: "WSOL", address: "So11111111111111111111111111111111111111112", decimals: 9 };
const EKPQ = { asset: "EKPQ", address: "EKpQGSJtjMFqKZ9KQanSqYXRcF8fBopzLHYxdM65zcjm", decimals: 6 };
const FISHY = { asset: "FISHY", address: "Fishy64jCaa3ooqXw7BHtKvYD8BTkSyAPh6RNE3xZpcN", decimals: 6 };
const everyone = { has: () => true };

/** The recorded block (bare result) at the slot after its parentSlot, as raw text. */
function recorded(name: string): {
  slot: number;
  hash: string;
  parent: string;
  adapter: ReturnType<typeof adapterFor>;
} {
  const text = realRpcText(name);
  const block = z
    .object({ parentSlot: z.number(), blockhash: z.string(), previousBlockhash: z.string() })
    .parse(parseJsonExact(text));
  const slot = block.parentSlot + 1;
  return { slot, hash: block.blockhash, parent: block.previousBlockhash, adapter: adapterFor(slot, text) };
}

function adapterFor(slot: number, text: string) {
  return (config: Partial<ChainConfigInput> = {}) =>
    createSolanaAdapter(resolveChainConfig("SOLANA", { rpcUrl: "http://rpc.invalid", ...config }), {
      fetch: stubSolanaRpc(new Map([[slot, text]])),
    });
}

describe.skipIf(!realRpcAvailable)(
  `Solana real-rpc fidelity${realRpcAvailable ? "" : ` (${REAL_RPC_MISSING})`}`,
  () => {
    it("slot 100,000,000: header, a self-transfer that is no deposit, two failed transactions skipped", async () => {
      const { slot, hash, parent, adapter } = recorded("solana-getBlock-1.json");
      await expect(adapter().headers({ from: slot - 2, to: slot + 2 })).resolves.toEqual([
        { height: slot, hash, parentHash: parent },
      ]);
      const all = adapter({ tokens: [USDC, USDT] });
      await expect(all.scan({ from: slot, to: slot }, everyone)).resolves.toEqual([]);
    });

    it("a v0 transaction with address lookup tables (json encoding): USDC and USDT received by watched owners", async () => {
      const { slot, hash, adapter } = recorded("solana-getBlock-2.json");
      const found = await adapter({ tokens: [USDC, USDT] }).scan(
        { from: slot, to: slot },
        new Set(["9ou4qq7RhycWHGS8XkgQwUS1qyWHrbz7ZoCKdm9o23vy", "3qgS5KYBTFJ6Lt8GujDEQLcgfLPSnFZ5VFMrxoes7rXs"]),
      );
      expect(found.map((t) => [t.position, t.to, t.asset, t.amountRaw, t.blockHash])).toEqual([
        ["bal:15", "3qgS5KYBTFJ6Lt8GujDEQLcgfLPSnFZ5VFMrxoes7rXs", "USDT", 11_149n, hash],
        ["bal:18", "3qgS5KYBTFJ6Lt8GujDEQLcgfLPSnFZ5VFMrxoes7rXs", "USDC", 11_143n, hash],
        ["bal:21", "9ou4qq7RhycWHGS8XkgQwUS1qyWHrbz7ZoCKdm9o23vy", "USDC", 22_364_264n, hash],
      ]);
      expect(
        found.every((t) => t.txHash.startsWith("5X7cr7bx") && t.decimals === 6 && t.contractAddress !== null),
      ).toBe(true);
    });

    it("a failed transaction that still lists token balances credits nobody", async () => {
      const { slot, adapter } = recorded("solana-getBlock-3.json");
      await expect(adapter({ tokens: [WSOL, EKPQ] }).scan({ from: slot, to: slot }, everyone)).resolves.toEqual([]);
    });

    it("a v0 swap that creates the receiving token account (a post balance without a pre balance)", async () => {
      const { slot, adapter } = recorded("solana-getBlock-4.json");
      const owner = "13ztuDnY8HvZCkBK7XwRv5jT5fd9KS7bgdXp1mL1Gd3H";
      const found = await adapter({ tokens: [WSOL, FISHY] }).scan({ from: slot, to: slot }, new Set([owner]));
      expect(found).toMatchObject([{ position: "bal:6", to: owner, asset: "FISHY", amountRaw: 50_000_000n }]);
    });

    it("getBlocks lists only the slots holding a block, ascending (skipped slots absent)", () => {
      const envelope = z.object({ result: z.unknown() }).parse(parseJsonExact(realRpcText("solana-getBlocks-1.json")));
      const slots = getBlocksResultSchema.parse(envelope.result);
      expect(slots).toHaveLength(12);
      expect(slots.every((slot, i) => i === 0 || slot > (slots[i - 1] ?? 0))).toBe(true);
      expect((slots.at(-1) ?? 0) - (slots[0] ?? 0)).toBeGreaterThan(slots.length);
    });
  },
);
