import type { Indexer } from "@mp/indexer";
import { checkLedger, returnHeldDeposit } from "@mp/ledger";
import { sendDepositReturn, settleDepositReturns } from "@mp/transfers";
import { findSend, reconcileChains } from "@mp/treasury";
import { Keypair } from "@solana/web3.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LAMPORTS_PER_SOL, type SolanaTreasuryHarness } from "../../packages/treasury/test/support/solana-treasury.ts";
import { testSendPipeline } from "../../packages/treasury/test/support/test-pipelines.ts";
import { transferTreasury } from "../../services/payments/src/transfer-treasury.ts";
import { addWallet, catchUp, createMerchant, rejectCustomer } from "../indexer/indexer-fixtures.ts";
import { useTestDatabase } from "../support/test-database.ts";
import { type SolanaReconcileSetup, startSolanaReconcile } from "./solana-reconcile-setup.ts";

const USDC = 1_000_000n;

/**
 * Returns on chain (issue 29) on the Solana test node, with the real indexer and send pipeline: a held
 * USDC deposit (its customer rejected) goes back to its sender (the SPL transfer's owner) once, less
 * the network fee (1 USDC at the sandbox's rate); the ledger and `reconcile chains` agree.
 */
describe("deposit returns on the Solana test node", () => {
  const database = useTestDatabase();
  const payer = Keypair.generate();
  const deposit = Keypair.generate().publicKey.toBase58();
  let setup: SolanaReconcileSetup;
  let h: SolanaTreasuryHarness;
  let indexer: Indexer;

  const settle = async () => {
    h.node.mine(3);
    await catchUp(indexer);
  };

  beforeAll(async () => {
    const db = database.db;
    setup = await startSolanaReconcile(db);
    ({ h, indexer } = setup);
    const merchant = await createMerchant(db);
    await addWallet(db, merchant, "SOLANA", deposit);
    await rejectCustomer(db, merchant);
    h.node.transfer(h.treasury, 5n * LAMPORTS_PER_SOL);
    h.node.transferToken(h.treasury, "USDC", 1_000n * USDC);
    h.node.transfer(payer.publicKey.toBase58(), LAMPORTS_PER_SOL);
    h.node.transferToken(payer.publicKey.toBase58(), "USDC", 50n * USDC);
    await settle();
  }, 120_000);

  afterAll(async () => {
    await indexer?.stop();
    await h?.node.stop();
  });

  it("a held USDC deposit goes back to its sender once, less the fee; ledger check and reconcile chains agree", async () => {
    const db = database.db;
    const from = payer.publicKey.toBase58();
    h.node.transferToken(deposit, "USDC", 25n * USDC, { from: payer });
    await settle();
    const { rows } = await db.query<{ id: string; hold_status: string | null; from_address: string }>(
      "SELECT id, hold_status, from_address FROM deposits WHERE to_address = $1 AND asset = 'USDC'",
      [deposit],
    );
    expect(rows).toEqual([expect.objectContaining({ hold_status: "HELD", from_address: from })]);
    const depositId = rows[0]?.id ?? "";
    const before = h.node.tokenBalance(from, "USDC");

    const ask = () =>
      db.tx((c) =>
        sendDepositReturn(c, { treasury: transferTreasury }, { depositId, networkFeeUsdMicros: 1_000_000n }),
      );
    await db.tx((c) => returnHeldDeposit(c, { depositId, reason: "KYC rejected" }));
    const sent = await ask();
    expect(sent).toMatchObject({ state: "sending", to: from, amountRaw: 24n * USDC, feeRaw: USDC });
    expect(await ask()).toMatchObject({ state: "sending", sendKey: sent.sendKey });

    const sends = await db.query<{ id: string }>("SELECT id FROM treasury_sends WHERE purpose = 'return'");
    expect(sends.rows).toHaveLength(1);
    const sendId = sends.rows[0]?.id ?? "";
    const pipeline = testSendPipeline(db, "SOLANA", h.sender());
    try {
      for (let i = 0; i < 30 && (await findSend(db, sendId))?.state !== "confirmed"; i++) {
        await pipeline.tick("SOLANA");
        h.node.mine(1);
      }
    } finally {
      await pipeline.stop();
    }
    expect((await findSend(db, sendId))?.state).toBe("confirmed");
    expect(await settleDepositReturns(db, transferTreasury, 50)).toBe(1);
    expect(await settleDepositReturns(db, transferTreasury, 50)).toBe(0);
    await settle();
    expect(h.node.tokenBalance(from, "USDC")).toBe(before + 24n * USDC);
    expect((await ask()).state).toBe("returned");
    expect((await checkLedger(db)).problems).toEqual([]);
    const report = await reconcileChains(db, setup.targets());
    expect(report.exitCode, JSON.stringify(report.lines)).toBe(0);
  }, 300_000);
});
