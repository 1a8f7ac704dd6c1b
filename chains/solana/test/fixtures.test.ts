import { readFileSync } from "node:fs";
import { type ChainConfigInput, resolveChainConfig, ServiceUnavailableError } from "@mp/core";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createSolanaAdapter } from "../src/index.ts";
import { blockAround, type StubBlocks, stubSolanaRpc } from "./rpc-stub.ts";

const recordedTransaction = z.object({
  slot: z.number(),
  meta: z.unknown(),
  transaction: z.unknown(),
  version: z.unknown().optional(),
});

function fixture(name: string): unknown {
  return JSON.parse(readFileSync(new URL(`./fixtures/${name}`, import.meta.url), "utf8"));
}

/** A recorded getTransaction (whole response or bare result) as the only block of a stubbed node. */
function recordedBlock(name: string): { slot: number; blocks: Map<number, ReturnType<typeof blockAround>> } {
  const raw = fixture(name);
  const envelope = z.object({ result: z.unknown() }).safeParse(raw);
  const tx = recordedTransaction.parse(envelope.success ? envelope.data.result : raw);
  return { slot: tx.slot, blocks: new Map([[tx.slot, blockAround(tx, tx.slot)]]) };
}

function adapterFor(blocks: StubBlocks, config: Partial<ChainConfigInput> = {}) {
  return createSolanaAdapter(resolveChainConfig("SOLANA", { rpcUrl: "http://rpc.invalid", ...config }), {
    fetch: stubSolanaRpc(blocks),
  });
}

describe("recorded getBlock example (solana.com docs, slot 430)", () => {
  const result = z.object({ result: z.unknown() }).parse(fixture("getBlock-430.solana-docs.json")).result;
  const blocks = new Map([[430, result]]);

  it("gives the header with blockhash and previousBlockhash", async () => {
    await expect(adapterFor(blocks).headers({ from: 425, to: 435 })).resolves.toEqual([
      {
        height: 430,
        hash: "3Eq21vXNB5s86c62bVuUfTeaMif1N2kUqRPBmGRJhyTA",
        parentHash: "mfcyqEXB3DnHXki6KjjmZck6YjmZLvpAByy2fj4nh6B",
      },
    ]);
  });

  it("finds no transfer in a vote transaction even when every account is watched", async () => {
    const watch = new Set([
      "3UVYmECPPMZSCqWKfENfuoTv51fTDTWicX9xmBD2euKe",
      "AjozzgE83A3x1sHNUR64hfH7zaEBWeMaFuAN9kQgujrc",
    ]);
    await expect(adapterFor(blocks).scan({ from: 430, to: 430 }, watch)).resolves.toEqual([]);
  });
});

describe("recorded mainnet transaction 3y4m6QGd… (jsonParsed, legacy, SOL paid by CPI)", () => {
  const { slot, blocks } = recordedBlock("getTransaction-3y4m6QGd.jsonParsed.result.json");
  const txHash = "3y4m6QGdiBcaYhMx32T4c3MfN6oyKq2F89zHKphtqvfPJoUJGYe7pBzTmdRujk8L84CnAvmvXReBW1VEs9AbNGkd";
  const buyer = "9647kmH4FriCa1bWqEDBdBqRzrn4TfzFUVbbSe6jiYUY";
  const seller = "4zdNGgAtFsW1cQgHqkiWyRsxaAgxrSRRynnuunxzjxue";
  const marketplace = "tenEpSp5GQM3Ko211Nrugvt7fk6cL7VUwAHmAY9rFNq";
  const nftMint = "9nRTx2xM7EFkveqssYAJ7Mz7fu4KNgE3Y1wuGCkjMY1s";
  const common = { txHash, blockHeight: slot, blockHash: `RecordedTransactionEnvelope${slot}` };

  it("yields each inner system transfer and the token received by its owner", async () => {
    const adapter = adapterFor(blocks, { tokens: [{ asset: "NFT", address: nftMint, decimals: 0 }] });
    const transfers = await adapter.scan({ from: slot, to: slot }, new Set([buyer, seller, marketplace]));
    expect(transfers).toEqual([
      // ix:2.6 pays the seller 0 lamports: never a deposit.
      {
        ...common,
        position: "ix:2.5",
        from: buyer,
        to: seller,
        asset: "SOL",
        contractAddress: null,
        amountRaw: 21_000_000n,
        decimals: 9,
      },
      {
        ...common,
        position: "ix:2.7",
        from: buyer,
        to: marketplace,
        asset: "SOL",
        contractAddress: null,
        amountRaw: 8_400_000n,
        decimals: 9,
      },
      {
        ...common,
        position: "ix:2.9",
        from: buyer,
        to: marketplace,
        asset: "SOL",
        contractAddress: null,
        amountRaw: 2_100_000_000n,
        decimals: 9,
      },
      // The NFT moved from the seller's closed account (index 2) to the buyer's new ATA (index 8).
      {
        ...common,
        position: "bal:8",
        from: seller,
        to: buyer,
        asset: "NFT",
        contractAddress: nftMint,
        amountRaw: 1n,
        decimals: 0,
      },
    ]);
  });

  it("ignores what is not watched and mints that are not configured", async () => {
    const transfers = await adapterFor(blocks).scan({ from: slot, to: slot }, new Set([marketplace, buyer]));
    expect(transfers.map((t) => [t.position, t.to, t.amountRaw])).toEqual([
      ["ix:2.7", marketplace, 8_400_000n],
      ["ix:2.9", marketplace, 2_100_000_000n],
    ]);
  });
});

describe("recorded mainnet transaction 4yWsJQg1… (jsonParsed, v0, tokens into an ATA created by CPI)", () => {
  const { slot, blocks } = recordedBlock("getTransaction-4yWsJQg1.jsonParsed.json");
  const owner = "4ToQp55myvfpeprgKuqGbDqyji9Ezm7CZg7QbcTpL33S";
  const pump = "3KDvwAuSFMUiRNhd6FZgHKXsd6qkoeRuHvpKV2vBpump";
  const wsol = "So11111111111111111111111111111111111111112";
  const tokens = [
    { asset: "PUMP", address: pump, decimals: 6 },
    { asset: "WSOL", address: wsol, decimals: 9 },
  ];

  it("credits the owner of the receiving token accounts and names the single sender", async () => {
    const transfers = await adapterFor(blocks, { tokens }).scan(
      { from: slot, to: slot },
      new Set([owner, "96gYZGLnJYVFmbjzopPSU6QiEV5fGqZNyN9nmNhvrZU5"]),
    );
    expect(
      transfers.map((t) => ({
        position: t.position,
        from: t.from,
        to: t.to,
        asset: t.asset,
        amountRaw: t.amountRaw,
        decimals: t.decimals,
      })),
    ).toEqual([
      {
        position: "ix:1.7",
        from: "6aNfYRTCrBSTAYtt1ePan8nbEHMcoxMkE1VuCGqkWK6H",
        to: "96gYZGLnJYVFmbjzopPSU6QiEV5fGqZNyN9nmNhvrZU5",
        asset: "SOL",
        amountRaw: 304_862n,
        decimals: 9,
      },
      {
        position: "bal:4",
        from: "5Q544fKrFoe6tsEbD7S8EmxGTJYAKtTVhAW5Q5pge4j1",
        to: owner,
        asset: "WSOL",
        amountRaw: 4_279_746_029n,
        decimals: 9,
      },
      {
        position: "bal:14",
        from: "6aNfYRTCrBSTAYtt1ePan8nbEHMcoxMkE1VuCGqkWK6H",
        to: owner,
        asset: "PUMP",
        amountRaw: 125_590_981_851n,
        decimals: 6,
      },
    ]);
    expect(new Set(transfers.map((t) => t.txHash))).toEqual(
      new Set(["4yWsJQg1yFNFxvPo7GGHPzMTyTM9YFgizoz36jJYFqG6Bw2jyGdcdZVvvBHCNdXj7xx5JZe3gb6UoqrwFDJSLnt5"]),
    );
  });

  it("does not credit owners whose balance went down", async () => {
    const senders = new Set([
      "6aNfYRTCrBSTAYtt1ePan8nbEHMcoxMkE1VuCGqkWK6H",
      "7CGS6eubJr2qFEeqFH5m2S4qskrRHcEQv1ewQLGLg4MT",
    ]);
    await expect(adapterFor(blocks, { tokens }).scan({ from: slot, to: slot }, senders)).resolves.toEqual([]);
  });
});

describe("recorded devnet USDC transfer 3Zj5XkvE… (json encoding, v0)", () => {
  const { slot, blocks } = recordedBlock("getTransaction-3Zj5XkvE.devnet-usdc.result.json");
  const usdc = { asset: "USDC", address: "4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU", decimals: 6 };
  const recipient = "BXT1K8kzYXWMi6ihg7m9UqiHW4iJbJ69zumELHE9oBLe";

  it("credits 0.01 USDC to the owner of the receiving token account", async () => {
    const transfers = await adapterFor(blocks, { network: "testnet", tokens: [usdc] }).scan(
      { from: slot, to: slot },
      new Set([recipient]),
    );
    expect(transfers).toEqual([
      {
        txHash: "3Zj5XkvE1Uec1frjue6SK2ND2cqhKPvPkZ1ZFPwo2v9iL4NX4b4WWG1wPNEQdnJJU8sVx7MMHjSH1HxoR21vEjoV",
        position: "bal:1",
        blockHeight: slot,
        blockHash: `RecordedTransactionEnvelope${slot}`,
        from: "BLw3RweJmfbTapJRgnPRvd962YDjFYAnVGd1p5hmZ5tP",
        to: recipient,
        asset: "USDC",
        contractAddress: usdc.address,
        amountRaw: 10_000n,
        decimals: 6,
      },
    ]);
  });

  it("credits nothing when the same transaction failed (meta.err set, derived from the recording)", async () => {
    const failed = new Map(
      [...blocks].map(([s, block]) => {
        const copy = structuredClone(block);
        for (const tx of copy.transactions) {
          tx.meta = {
            ...z.object({ err: z.null() }).loose().parse(tx.meta),
            err: { InstructionError: [0, { Custom: 1 }] },
          };
        }
        return [s, copy];
      }),
    );
    const adapter = adapterFor(failed, { network: "testnet", tokens: [usdc] });
    await expect(adapter.scan({ from: slot, to: slot }, new Set([recipient]))).resolves.toEqual([]);
  });
});

describe("recorded associated token account creation 4c5dH6XV… (zero balance)", () => {
  const { slot, blocks } = recordedBlock("getTransaction-4c5dH6XV.create-ata.json");

  it("is not a deposit: the owner's new account holds 0 tokens", async () => {
    const adapter = adapterFor(blocks, {
      tokens: [{ asset: "PUMP", address: "J1Wpmugrooj1yMyQKrdZ2vwRXG5rhfx3vTnYE39gpump", decimals: 6 }],
    });
    await expect(
      adapter.scan({ from: slot, to: slot }, new Set(["Jp8xRDtkd8LQwGvPV8z4DdARsCy23Vi9m2dqyqNsszG"])),
    ).resolves.toEqual([]);
  });
});

describe("answers the adapter must refuse", () => {
  it("a transaction without status metadata stops the scan with a retryable error", async () => {
    const { slot, blocks } = recordedBlock("getTransaction-3y4m6QGd.jsonParsed.result.json");
    const withoutMeta = new Map(
      [...blocks].map(([s, block]) => [
        s,
        { ...block, transactions: block.transactions.map((tx) => ({ ...tx, meta: null })) },
      ]),
    );
    const error = await adapterFor(withoutMeta)
      .scan({ from: slot, to: slot }, new Set())
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ServiceUnavailableError);
    expect((error as ServiceUnavailableError).retryable).toBe(true);
  });

  it("a block of unexpected shape is a retryable error naming the field", async () => {
    const blocks = new Map([
      [7, { blockhash: "x", previousBlockhash: "y", parentSlot: 6, transactions: [{ meta: {}, transaction: {} }] }],
    ]);
    await expect(adapterFor(blocks).scan({ from: 7, to: 7 }, new Set())).rejects.toThrow(
      /getBlock 7: unexpected answer at transactions\.0\./,
    );
  });

  it("a slot getBlocks lists but getBlock calls skipped is a retryable error, never a silent gap", async () => {
    const { slot, blocks } = recordedBlock("getTransaction-3Zj5XkvE.devnet-usdc.result.json");
    const adapter = createSolanaAdapter(resolveChainConfig("SOLANA", { rpcUrl: "http://rpc.invalid" }), {
      fetch: stubSolanaRpc(blocks, [slot + 1]),
    });
    const error = await adapter.headers({ from: slot, to: slot + 1 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ServiceUnavailableError);
    expect(String(error)).toMatch(/getBlock \d+ failed although getBlocks listed it: -32007/);
  });

  it("keeps every digit of a lamport amount beyond 2^53", async () => {
    const to = "En7K4KyP7wmqHp3ZEUxWtiQfCSUVxFWPQGLWLSGKSh5a";
    const raw =
      '{"blockhash":"B","previousBlockhash":"A","parentSlot":4,"transactions":[{"meta":{"err":null,"innerInstructions":[],' +
      '"preTokenBalances":[],"postTokenBalances":[]},"transaction":{"signatures":["5ig"],"message":{"instructions":[' +
      '{"parsed":{"info":{"destination":"' +
      to +
      '","lamports":12345678901234567891,"source":"S"},"type":"transfer"},' +
      '"program":"system","programId":"11111111111111111111111111111111","stackHeight":null}]}},"version":"legacy"}]}';
    const transfers = await adapterFor(new Map([[5, raw]])).scan({ from: 5, to: 5 }, new Set([to]));
    expect(transfers.map((t) => t.amountRaw)).toEqual([12_345_678_901_234_567_891n]);
  });
});
