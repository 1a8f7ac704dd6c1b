import { createSolanaSweeper, type SolanaSweeper } from "@mp/chain-solana";
import { silentLogger } from "@mp/core";
import type { Indexer } from "@mp/indexer";
import { reconcileChains, type SendPipeline } from "@mp/treasury";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDepositMerchant, testDepositKeys } from "../../packages/treasury/test/support/evm-deposits.ts";
import { LAMPORTS_PER_SOL, type SolanaTreasuryHarness } from "../../packages/treasury/test/support/solana-treasury.ts";
import { untilSweepsSettled } from "../../packages/treasury/test/support/sweep-rows.ts";
import { testSendPipeline } from "../../packages/treasury/test/support/test-pipelines.ts";
import { catchUp } from "../indexer/indexer-fixtures.ts";
import { useTestDatabase } from "../support/test-database.ts";
import { TEST_LEASE_SECONDS } from "../support/test-leases.ts";
import { type SolanaReconcileSetup, startSolanaReconcile } from "./solana-reconcile-setup.ts";

const TOKEN_ACCOUNT_RENT = 2_039_280n;

describe("payments reconcile chains after Solana sweeps", () => {
  const database = useTestDatabase();
  let h: SolanaTreasuryHarness;
  let indexer: Indexer;
  let pipeline: SendPipeline;
  let sweeper: SolanaSweeper;
  let setup: SolanaReconcileSetup;
  const targets = () => setup.targets();
  const sweepRows = () =>
    database.db.query<{ asset: string; state: string; rent_reclaimed_raw: string; rent_paid_raw: string }>(
      "SELECT asset, state, rent_reclaimed_raw::text, rent_paid_raw::text FROM treasury_sweeps ORDER BY asset, id",
    );

  beforeAll(async () => {
    const db = database.db;
    // The treasury holds SOL (the operator's float) but no USDC: its token account is opened by a sweep.
    setup = await startSolanaReconcile(db);
    ({ h, indexer } = setup);
    pipeline = testSendPipeline(db, "SOLANA", h.sender());
    sweeper = createSolanaSweeper({
      db,
      chain: h.config,
      depositKeys: testDepositKeys(),
      treasuryKeys: h.keys,
      logger: silentLogger(),
      leaseSeconds: TEST_LEASE_SECONDS,
    });
  }, 120_000);

  afterAll(async () => {
    await sweeper?.stop();
    await pipeline?.stop();
    await indexer?.stop();
    await h?.node.stop();
  });

  it("agrees to the lamport and the token unit once the deposits are swept and their token accounts closed", async () => {
    const db = database.db;
    const merchant = await createDepositMerchant(db, 4, "SOLANA");
    const [a, b, below, native] = merchant.addresses;
    h.node.transfer(h.treasury, 5n * LAMPORTS_PER_SOL);
    h.node.transferToken(a.address, "USDC", 50_000_000n);
    h.node.transferToken(b.address, "USDC", 20_000_000n);
    h.node.transferToken(b.address, "USDC", 5_000_000n);
    h.node.transferToken(below.address, "USDC", 3_000_000n);
    h.node.transfer(native.address, 2n * LAMPORTS_PER_SOL);
    h.node.mine(3);
    await catchUp(indexer);
    const before = await reconcileChains(db, targets());
    expect(before.exitCode, JSON.stringify(before.lines)).toBe(0);
    const { rows: confirmed } = await db.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM deposits WHERE chain = 'SOLANA' AND status = 'CONFIRMED'",
    );
    expect(confirmed[0]?.n).toBe(5);

    const rows = await untilSweepsSettled(
      [sweeper, pipeline],
      "SOLANA",
      () => h.node.mine(),
      async () => (await sweepRows()).rows,
      3,
    );
    expect(rows.map((r) => [r.asset, r.state])).toEqual([
      ["SOL", "confirmed"],
      ["USDC", "confirmed"],
      ["USDC", "confirmed"],
    ]);
    // Both deposit token accounts closed (rent in); the treasury's opened once, by one of the two sweeps (rent out).
    const usdcRows = rows.filter((r) => r.asset === "USDC");
    expect(usdcRows.map((r) => r.rent_reclaimed_raw)).toEqual([
      TOKEN_ACCOUNT_RENT.toString(),
      TOKEN_ACCOUNT_RENT.toString(),
    ]);
    expect(usdcRows.map((r) => r.rent_paid_raw).sort()).toEqual(["0", TOKEN_ACCOUNT_RENT.toString()]);
    for (const address of [a, b])
      expect(h.node.balance(h.node.associatedTokenAddress(address.address, "USDC"))).toBe(0n);
    h.node.mine(3);
    await catchUp(indexer);

    const report = await reconcileChains(db, targets());
    expect(report.exitCode, JSON.stringify(report.lines)).toBe(0);
    const sol = report.lines.find((l) => l.asset === "SOL");
    const usdc = report.lines.find((l) => l.asset === "USDC");
    // The treasury holds what the deposit token accounts held; the deposit below the threshold stays where it was.
    expect(h.node.tokenBalance(h.treasury, "USDC")).toBe(75_000_000n);
    expect(usdc).toMatchObject({ status: "agrees", chain_holdings: "78000000", expected: "78000000", difference: "0" });
    // SOL: the float and the SOL deposit, less three two-signature fees, plus one token account's rent net.
    expect(sol?.breakdown.fees).toBe("30000");
    expect(sol?.breakdown.sweep_rent).toBe(TOKEN_ACCOUNT_RENT.toString());
    expect(sol).toMatchObject({
      status: "agrees",
      chain_holdings: (7n * LAMPORTS_PER_SOL - 30_000n + TOKEN_ACCOUNT_RENT).toString(),
      difference: "0",
    });
    expect(h.node.balance(h.treasury)).toBe(7n * LAMPORTS_PER_SOL - 30_000n + TOKEN_ACCOUNT_RENT);
    // Nothing of the sweeps was mistaken for a deposit or for the operator's float.
    const { rows: receipts } = await db.query<{ kind: string; asset: string }>(
      "SELECT kind, asset FROM treasury_receipts WHERE kind = 'float' ORDER BY asset",
    );
    expect(receipts).toEqual([{ kind: "float", asset: "SOL" }]);
    const { rows: deposits } = await db.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM deposits WHERE chain = 'SOLANA'",
    );
    expect(deposits[0]?.n).toBe(5);
  }, 120_000);
});
