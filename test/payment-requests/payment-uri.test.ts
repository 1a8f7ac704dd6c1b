import { describe, expect, it } from "vitest";
import { paymentUriOf } from "../../services/payments/src/chain-families.ts";

const base = { network: "mainnet" as const, contractAddress: null };

describe("payment URIs, each written by its chain's family", () => {
  it("BIP-21 for Bitcoin, the amount in BTC", () => {
    expect(paymentUriOf({ ...base, chain: "BITCOIN", address: "bc1qexample", decimals: 8, amountRaw: 38_462n })).toBe(
      "bitcoin:bc1qexample?amount=0.00038462",
    );
  });

  it("EIP-681 with the chain id: a token's transfer, a coin's value in wei", () => {
    const token = "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913";
    const to = "0x1111111111111111111111111111111111111111";
    expect(
      paymentUriOf({
        ...base,
        chain: "BASE",
        address: to,
        contractAddress: token,
        decimals: 6,
        amountRaw: 25_000_000n,
      }),
    ).toBe(`ethereum:${token}@8453/transfer?address=${to}&uint256=25000000`);
    expect(
      paymentUriOf({ ...base, chain: "BASE", network: "testnet", address: to, decimals: 18, amountRaw: 10n }),
    ).toBe(`ethereum:${to}@84532?value=10`);
  });

  it("Solana Pay for SOL and SPL tokens, a Tron address URI", () => {
    expect(paymentUriOf({ ...base, chain: "SOLANA", address: "So1Addr", decimals: 9, amountRaw: 166_666_667n })).toBe(
      "solana:So1Addr?amount=0.166666667",
    );
    expect(
      paymentUriOf({
        ...base,
        chain: "SOLANA",
        address: "So1Addr",
        contractAddress: "Mint1",
        decimals: 6,
        amountRaw: 25_000_000n,
      }),
    ).toBe("solana:So1Addr?amount=25&spl-token=Mint1");
    expect(
      paymentUriOf({
        ...base,
        chain: "TRON",
        address: "TAddr",
        contractAddress: "TToken",
        decimals: 6,
        amountRaw: 25_500_000n,
      }),
    ).toBe("tron:TAddr?amount=25.5&token=TToken");
  });
});
