import { createSolanaAdapter } from "@mp/chain-solana";
import type { Indexer } from "@mp/indexer";
import { type ReconcileTarget, reconcileChains, requestSend } from "@mp/treasury";
import { Keypair } from "@solana/web3.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LAMPORTS_PER_SOL, startSolanaTreasury } from "../../packages/treasury/test/support/solana-treasury.ts";
import { testPipelines } from "../../packages/treasury/test/support/test-pipelines.ts";
import { useTreasuryHarness } from "../../packages/treasury/test/support/use-treasury.ts";
import { catchUp } from "../indexer/indexer-fixtures.ts";
import { indexTreasuryAndDeposit } from "./reconcile-fixtures.ts";

describe("payments reconcile chains on the Solana test node", () => {
  // An unfunded treasury: the test's own top-up below is the operator's float.
  const { t: database, h } = useTreasuryHarness((db) => startSolanaTreasury(db, { sol: 0n, usdc: 0n }));
  const pipelines = testPipelines("SOLANA", () => database.db);
  let indexer: Indexer;
  const deposit = Keypair.generate().publicKey.toBase58();
  const targets = (): ReconcileTarget[] => [
    {
      config: h.config,
      assets: [
        { asset: "SOL", address: null, decimals: 9 },
        ...h.config.tokens.map((t) => ({ asset: t.asset, address: t.address, decimals: t.decimals })),
      ],
    },
  ];

  beforeAll(async () => {
    const db = database.db;
    const chain = { chain: "SOLANA" as const, config: h.config, adapter: () => createSolanaAdapter(h.config) };
    indexer = await indexTreasuryAndDeposit(db, chain, h.keys.solana(), deposit);
    // The operator's top-up, then a customer's deposit.
    h.node.transfer(h.treasury, 5n * LAMPORTS_PER_SOL);
    h.node.transferToken(h.treasury, "USDC", 1_000_000_000n);
    h.node.transfer(deposit, LAMPORTS_PER_SOL);
    h.node.transferToken(deposit, "USDC", 50_000_000n);
    h.node.mine(3);
    await catchUp(indexer);

    const { send } = await requestSend(db, {
      chain: "SOLANA",
      asset: "SOL",
      to: Keypair.generate().publicKey.toBase58(),
      amountRaw: LAMPORTS_PER_SOL / 2n,
      purpose: "operator",
      idempotencyKey: "reconcile-sol",
    });
    await pipelines.runUntilConfirmed(h.sender(), [send.id], () => h.node.mine(1));
    h.node.mine(3);
    await catchUp(indexer);
  }, 120_000);

  afterAll(async () => {
    await indexer?.stop();
  });

  it("records the top-up as float and agrees to the lamport and the token unit (exit 0)", async () => {
    const receipts = await database.db.query<{ asset: string; amount_raw: string; kind: string }>(
      "SELECT asset, amount_raw::text, kind FROM treasury_receipts ORDER BY asset",
    );
    expect(receipts.rows).toEqual([
      { asset: "SOL", amount_raw: (5n * LAMPORTS_PER_SOL).toString(), kind: "float" },
      { asset: "USDC", amount_raw: "1000000000", kind: "float" },
    ]);
    const report = await reconcileChains(database.db, targets());
    const sol = report.lines.find((l) => l.asset === "SOL");
    const usdc = report.lines.find((l) => l.asset === "USDC");
    expect(report.exitCode, JSON.stringify(report.lines)).toBe(0);
    const fee = BigInt(sol?.breakdown.fees ?? "0");
    expect(fee).toBeGreaterThan(0n);
    expect(sol?.chain_holdings).toBe((6n * LAMPORTS_PER_SOL - LAMPORTS_PER_SOL / 2n - fee).toString());
    expect(usdc).toMatchObject({ status: "agrees", chain_holdings: "1050000000", difference: "0" });
  });
});
