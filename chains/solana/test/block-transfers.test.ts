import { describe, expect, it } from "vitest";
import { extractBlockTransfers } from "../src/block-transfers.ts";
import { fullBlockSchema } from "../src/rpc-schemas.ts";
import { resolveSolanaAssets } from "../src/solana-assets.ts";

const MINT = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v";
const OTHER_MINT = "Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB";
const assets = resolveSolanaAssets({ network: "mainnet", tokens: [] });
const where = { slot: 9, blockHash: "H" };

const balance = (accountIndex: number, owner: string | undefined, amount: string, mint = MINT) => ({
  accountIndex,
  mint,
  ...(owner === undefined ? {} : { owner }),
  programId: "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA",
  uiTokenAmount: { amount, decimals: 6, uiAmount: null, uiAmountString: "" },
});

/** One successful transaction that only changes token balances, parsed as the adapter parses it. */
function blockWithBalances(pre: unknown[], post: unknown[]) {
  return fullBlockSchema.parse({
    blockhash: "H",
    previousBlockhash: "G",
    parentSlot: 8,
    transactions: [
      {
        meta: { err: null, innerInstructions: [], preTokenBalances: pre, postTokenBalances: post },
        transaction: { signatures: ["sig"], message: { instructions: [] } },
        version: 0,
      },
    ],
  });
}

const deposits = (pre: unknown[], post: unknown[], watch: string[]) =>
  extractBlockTransfers(blockWithBalances(pre, post), where, assets, new Set(watch)).map((t) => ({
    position: t.position,
    from: t.from,
    to: t.to,
    asset: t.asset,
    amountRaw: t.amountRaw,
  }));

describe("token deposits from owner balances (mainnet default mints)", () => {
  it("credits the owner with the net increase, naming the account that received it and the sender", () => {
    expect(
      deposits([balance(1, "payer", "500")], [balance(1, "payer", "200"), balance(2, "shop", "300")], ["shop"]),
    ).toEqual([{ position: "bal:2", from: "payer", to: "shop", asset: "USDC", amountRaw: 300n }]);
  });

  it("gives no sender when several owners paid", () => {
    const result = deposits(
      [balance(1, "a", "5"), balance(2, "b", "5")],
      [balance(1, "a", "0"), balance(2, "b", "0"), balance(3, "shop", "10")],
      ["shop"],
    );
    expect(result).toEqual([{ position: "bal:3", from: null, to: "shop", asset: "USDC", amountRaw: 10n }]);
  });

  it("is no deposit when a wallet moves tokens between its own accounts", () => {
    expect(
      deposits(
        [balance(1, "shop", "100"), balance(2, "shop", "0")],
        [balance(1, "shop", "0"), balance(2, "shop", "100")],
        ["shop"],
      ),
    ).toEqual([]);
  });

  it("sums payments into two accounts of one owner into one deposit", () => {
    expect(deposits([], [balance(4, "shop", "30"), balance(5, "shop", "70")], ["shop"])).toEqual([
      { position: "bal:5", from: null, to: "shop", asset: "USDC", amountRaw: 100n },
    ]);
  });

  it("credits the new owner when an account changes hands inside the transaction", () => {
    expect(deposits([balance(1, "seller", "40")], [balance(1, "shop", "40")], ["shop", "seller"])).toEqual([
      { position: "bal:1", from: "seller", to: "shop", asset: "USDC", amountRaw: 40n },
    ]);
  });

  it("keeps mints apart and ignores unconfigured mints and balances without an owner", () => {
    const unknownMint = "So11111111111111111111111111111111111111112";
    const result = deposits(
      [balance(1, "shop", "10", OTHER_MINT)],
      [balance(1, "shop", "15", OTHER_MINT), balance(2, "shop", "99", unknownMint), balance(3, undefined, "7")],
      ["shop"],
    );
    expect(result).toEqual([{ position: "bal:1", from: null, to: "shop", asset: "USDT", amountRaw: 5n }]);
  });
});
