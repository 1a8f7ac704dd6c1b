import type { Indexer } from "@mp/indexer";
import { findSend, reconcileChains, requestSend } from "@mp/treasury";
import { Keypair } from "@solana/web3.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LAMPORTS_PER_SOL, type SolanaTreasuryHarness } from "../../packages/treasury/test/support/solana-treasury.ts";
import { testSendPipeline } from "../../packages/treasury/test/support/test-pipelines.ts";
import { sendCheckOf } from "../../services/payments/src/chain-families.ts";
import { addWallet, catchUp, createMerchant } from "../indexer/indexer-fixtures.ts";
import { useTestDatabase } from "../support/test-database.ts";
import { type SolanaReconcileSetup, startSolanaReconcile } from "./solana-reconcile-setup.ts";

describe("payments reconcile chains on the Solana test node", () => {
  const database = useTestDatabase();
  let h: SolanaTreasuryHarness;
  let indexer: Indexer;
  const deposit = Keypair.generate().publicKey.toBase58();
  let setup: SolanaReconcileSetup;
  const targets = () => setup.targets();

  beforeAll(async () => {
    const db = database.db;
    setup = await startSolanaReconcile(db);
    ({ h, indexer } = setup);
    await addWallet(db, await createMerchant(db), "SOLANA", deposit);
    // The operator's top-up, then a customer's deposit.
    h.node.transfer(h.treasury, 5n * LAMPORTS_PER_SOL);
    h.node.transferToken(h.treasury, "USDC", 1_000_000_000n);
    h.node.transfer(deposit, LAMPORTS_PER_SOL);
    h.node.transferToken(deposit, "USDC", 50_000_000n);
    h.node.mine(3);
    await catchUp(indexer);

    // SOL to a new wallet, and USDC to a wallet without a token account: the treasury pays its rent.
    const sends = [
      await requestSend(
        db,
        {
          chain: "SOLANA",
          asset: "SOL",
          to: Keypair.generate().publicKey.toBase58(),
          amountRaw: LAMPORTS_PER_SOL / 2n,
          purpose: "operator",
          idempotencyKey: "reconcile-sol",
        },
        sendCheckOf("SOLANA"),
      ),
      await requestSend(
        db,
        {
          chain: "SOLANA",
          asset: "USDC",
          to: Keypair.generate().publicKey.toBase58(),
          amountRaw: 10_000_000n,
          purpose: "operator",
          idempotencyKey: "reconcile-usdc",
        },
        sendCheckOf("SOLANA"),
      ),
    ].map((r) => r.send);
    const pipeline = testSendPipeline(db, "SOLANA", h.sender());
    const allConfirmed = async () => {
      for (const send of sends) if ((await findSend(db, send.id))?.state !== "confirmed") return false;
      return true;
    };
    for (let i = 0; i < 30 && !(await allConfirmed()); i++) {
      await pipeline.tick("SOLANA");
      h.node.mine(1);
    }
    await pipeline.stop();
    expect(await allConfirmed()).toBe(true);
    h.node.mine(3);
    await catchUp(indexer);
  }, 120_000);

  afterAll(async () => {
    await indexer?.stop();
    await h?.node.stop();
  });

  it("records the top-up as float and agrees to the lamport (fees and a new token account's rent) and the token unit (exit 0)", async () => {
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
    // Two signatures' fees and the new token account's rent (165 bytes: 2,039,280 lamports).
    const fee = BigInt(sol?.breakdown.fees ?? "0");
    expect(fee).toBeGreaterThan(2_039_280n);
    expect(sol?.chain_holdings).toBe((6n * LAMPORTS_PER_SOL - LAMPORTS_PER_SOL / 2n - fee).toString());
    expect(usdc).toMatchObject({ status: "agrees", chain_holdings: "1040000000", difference: "0" });
  });
});
