import { createLogger, silentLogger } from "@mp/core";
import { createTestDatabase, type TestDatabase } from "@mp/db/testing";
import { VersionedTransaction } from "@solana/web3.js";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createSolanaSweeper, type SolanaSweeper } from "../../../chains/solana/src/sweep/solana-sweeper.ts";
import { TEST_LEASE_SECONDS } from "../../../test/support/test-leases.ts";
import type { SendPipeline } from "../src/send-pipeline.ts";
import {
  createDepositMerchant,
  type DepositAddress,
  type DepositMerchant,
  recordConfirmedDeposits,
  testDepositKeys,
} from "./support/evm-deposits.ts";
import { until } from "./support/evm-treasury.ts";
import { LAMPORTS_PER_SOL, type SolanaTreasuryHarness, startSolanaTreasury } from "./support/solana-treasury.ts";
import { moneyBeforeSweeps, type SweepRowColumns, untilSweepsSettled } from "./support/sweep-rows.ts";
import { testPipelines } from "./support/test-pipelines.ts";

let t: TestDatabase;
let h: SolanaTreasuryHarness;
let pipeline: SendPipeline;
const pipelines = testPipelines("SOLANA", () => t.db);
const sweepers: SolanaSweeper[] = [];
const depositKeys = testDepositKeys();
/** What the test node charges: a token account's rent, and the fee of a two-signature transaction. */
const TOKEN_ACCOUNT_RENT = 2_039_280n;
const SWEEP_FEE = 10_000n;

beforeAll(async () => {
  t = await createTestDatabase();
  h = await startSolanaTreasury(t.db);
  pipeline = pipelines.start(h.sender());
}, 60_000);

afterEach(async () => {
  h.node.dropIncoming(false);
  await Promise.all(sweepers.splice(0).map((s) => s.stop()));
});

afterAll(async () => {
  await pipelines.stopAll();
  await h?.node.stop();
  await t?.drop();
});

const sweeper = (onStored?: (sweepId: string) => void): SolanaSweeper => {
  const s = createSolanaSweeper({
    db: t.db,
    chain: h.config,
    depositKeys,
    treasuryKeys: h.keys,
    logger: process.env.DEBUG_SWEEPS ? createLogger({ level: "debug" }) : silentLogger(),
    leaseSeconds: TEST_LEASE_SECONDS,
    ...(onStored ? { onStored } : {}),
  });
  sweepers.push(s);
  return s;
};

/** Pays the addresses on the node, mines, and records the deposits CONFIRMED and credited. */
async function depositAndCredit(
  merchant: DepositMerchant,
  payments: ReadonlyArray<{ address: DepositAddress; asset: "SOL" | "USDC"; amount: bigint }>,
): Promise<void> {
  const usdc = h.node.tokens.find((token) => token.asset === "USDC");
  const recorded = payments.map((p) => ({
    ...p,
    decimals: p.asset === "SOL" ? 9 : 6,
    contract: p.asset === "SOL" ? null : (usdc?.address ?? null),
    txHash:
      p.asset === "SOL"
        ? h.node.transfer(p.address.address, p.amount)
        : h.node.transferToken(p.address.address, "USDC", p.amount),
  }));
  h.node.mine();
  await recordConfirmedDeposits(t.db, "SOLANA", merchant, recorded);
}

/** A merchant with one address paid `amount` USDC (confirmed, credited), and the treasury's USDC before any sweep. */
async function oneUsdcDeposit(amount: bigint) {
  const merchant = await createDepositMerchant(t.db, 1, "SOLANA");
  const [address] = merchant.addresses;
  await depositAndCredit(merchant, [{ address, asset: "USDC", amount }]);
  return { merchant, address, treasuryUsdc: h.node.tokenBalance(h.treasury, "USDC") };
}

interface SweepRow extends SweepRowColumns {
  rent_reclaimed_raw: string;
  rent_paid_raw: string;
  send_id: string | null;
}

const sweepsOf = async (merchant: DepositMerchant): Promise<SweepRow[]> => {
  const { rows } = await t.db.query<SweepRow>(
    `SELECT w.id, w.deposit_address, w.asset, w.state, w.covered_raw::text, w.amount_raw::text, w.fee_paid_raw::text,
            w.rent_reclaimed_raw::text, w.rent_paid_raw::text, w.tx_hash, w.send_id
       FROM treasury_sweeps w JOIN destinations d ON d.id = w.destination_id
      WHERE d.merchant_id = $1 ORDER BY w.deposit_address, w.asset`,
    [merchant.merchantId],
  );
  return rows;
};

const attemptsOf = async (sweepId: string) => {
  const { rows } = await t.db.query<{ id: string; tx_hash: string; state: string; from_address: string }>(
    `SELECT a.id, a.tx_hash, a.state, a.from_address
       FROM treasury_sweeps w JOIN treasury_attempt_sends x ON x.send_id = w.send_id
       JOIN treasury_attempts a ON a.id = x.attempt_id
      WHERE w.id = $1 ORDER BY a.created_at, a.id`,
    [sweepId],
  );
  return rows;
};

/** Sweeper pass, pipeline pass, a block: until every sweep of the merchant is in a final state. */
const sweepUntilSettled = (s: SolanaSweeper, merchant: DepositMerchant, expected: number): Promise<SweepRow[]> =>
  untilSweepsSettled(
    [s, pipeline],
    "SOLANA",
    () => h.node.mine(),
    () => sweepsOf(merchant),
    expected,
  );

/** Who signed a landed transaction (the fee payer first) and its instruction count. */
const landed = (signature: string) => {
  const tx = h.node.transaction(signature);
  if (!tx) throw new Error(`${signature} did not land`);
  const message = VersionedTransaction.deserialize(tx.wire).message;
  return {
    failed: tx.failed,
    signers: message.staticAccountKeys.slice(0, message.header.numRequiredSignatures).map((k) => k.toBase58()),
    instructions: message.compiledInstructions.length,
  };
};

const ata = (owner: string) => h.node.associatedTokenAddress(owner, "USDC");

describe("Solana sweeps on the Solana test node", () => {
  it("sweeps tokens and SOL into the treasury, closes the emptied token accounts to the treasury, leaves the ledger alone", async () => {
    const merchant = await createDepositMerchant(t.db, 4, "SOLANA");
    const [a, b, below, native] = merchant.addresses;
    await depositAndCredit(merchant, [
      { address: a, asset: "USDC", amount: 25_000_000n },
      { address: b, asset: "USDC", amount: 40_000_000n },
      { address: b, asset: "USDC", amount: 2_500_000n },
      // Below the default 10 USDC threshold: stays where it is, its account open.
      { address: below, asset: "USDC", amount: 4_000_000n },
      { address: native, asset: "SOL", amount: LAMPORTS_PER_SOL / 2n },
    ]);
    const treasuryUsdc = h.node.tokenBalance(h.treasury, "USDC");
    const treasurySol = h.node.balance(h.treasury);
    const money = await moneyBeforeSweeps(t.db, merchant);

    const first = sweeper();
    const rows = await sweepUntilSettled(first, merchant, 3);
    await first.stop();

    expect(rows.map((r) => r.state)).toEqual(["confirmed", "confirmed", "confirmed"]);
    expect(rows.some((r) => r.deposit_address === below.address)).toBe(false);
    expect(h.node.tokenBalance(h.treasury, "USDC")).toBe(treasuryUsdc + 67_500_000n);
    for (const address of [a, b]) {
      // Emptied and closed: the account is gone, its rent went to the treasury.
      expect(h.node.tokenBalance(address.address, "USDC")).toBe(0n);
      expect(h.node.balance(ata(address.address))).toBe(0n);
    }
    expect(h.node.tokenBalance(below.address, "USDC")).toBe(4_000_000n);
    expect(h.node.balance(ata(below.address))).toBe(TOKEN_ACCOUNT_RENT);
    // The deposit addresses never held SOL for fees: the treasury paid them, and got the rent back.
    for (const address of [a, b]) expect(h.node.balance(address.address)).toBe(0n);
    expect(h.node.balance(native.address)).toBe(0n);
    expect(h.node.balance(h.treasury)).toBe(
      treasurySol + LAMPORTS_PER_SOL / 2n + 2n * TOKEN_ACCOUNT_RENT - 3n * SWEEP_FEE,
    );
    for (const row of rows) {
      expect(row.fee_paid_raw).toBe(SWEEP_FEE.toString());
      expect(row.rent_paid_raw).toBe("0");
      expect(row.amount_raw).toBe(row.covered_raw);
      const tx = landed(row.tx_hash ?? "");
      expect(tx.failed).toBe(false);
      // The treasury pays (first signer), the deposit key signs for what moves.
      expect(tx.signers).toEqual([h.treasury, row.deposit_address]);
      expect(tx.instructions).toBe(row.asset === "USDC" ? 2 : 1);
      expect(row.rent_reclaimed_raw).toBe(row.asset === "USDC" ? TOKEN_ACCOUNT_RENT.toString() : "0");
      expect((await attemptsOf(row.id)).map((x) => [x.state, x.from_address])).toEqual([
        ["mined", row.deposit_address],
      ]);
    }
    // Nothing new to sweep: another sweeper's passes open nothing.
    const again = sweeper();
    await money.expectSweptOnce(3, async () => {
      for (let i = 0; i < 3; i++) await again.tick("SOLANA");
    });
  }, 120_000);

  it("leaves open a token account that still holds a deposit the sweep does not cover, and closes it next time", async () => {
    const merchant = await createDepositMerchant(t.db, 1, "SOLANA");
    const [address] = merchant.addresses;
    await depositAndCredit(merchant, [{ address, asset: "USDC", amount: 20_000_000n }]);
    // On chain, not confirmed yet (no deposit row): the sweep must not take it, nor close its account.
    h.node.transferToken(address.address, "USDC", 15_000_000n);
    h.node.mine();

    const s = sweeper();
    const [first] = await sweepUntilSettled(s, merchant, 1);
    expect(first).toMatchObject({ state: "confirmed", amount_raw: "20000000", rent_reclaimed_raw: "0" });
    expect(landed(first?.tx_hash ?? "").instructions).toBe(1);
    expect(h.node.tokenBalance(address.address, "USDC")).toBe(15_000_000n);
    expect(h.node.balance(ata(address.address))).toBe(TOKEN_ACCOUNT_RENT);

    // Confirmed now: swept, and the account closed with it.
    await recordConfirmedDeposits(t.db, "SOLANA", merchant, [
      {
        address,
        asset: "USDC",
        amount: 15_000_000n,
        decimals: 6,
        contract: h.node.tokens[0]?.address ?? null,
        txHash: `late-${address.address}`,
      },
    ]);
    const rows = await sweepUntilSettled(s, merchant, 2);
    const second = rows.find((r) => r.id !== first?.id);
    expect(second).toMatchObject({ state: "confirmed", amount_raw: "15000000" });
    expect(second?.rent_reclaimed_raw).toBe(TOKEN_ACCOUNT_RENT.toString());
    expect(h.node.balance(ata(address.address))).toBe(0n);
  }, 120_000);

  it("after a crash between storing and broadcasting, the pipeline broadcasts the stored sweep: it lands once", async () => {
    const { merchant, address, treasuryUsdc } = await oneUsdcDeposit(30_000_000n);
    let stored = 0;
    const crashing = sweeper(() => {
      stored++;
      throw new Error("crash: the signer died before broadcasting the sweep");
    });
    for (let i = 0; i < 10 && stored === 0; i++) await crashing.tick("SOLANA");
    await crashing.stop();
    const [opened] = await sweepsOf(merchant);
    if (!opened) throw new Error("no sweep opened");
    expect(opened.state).toBe("sweeping");
    expect((await attemptsOf(opened.id)).map((x) => x.state)).toEqual(["signed"]);
    h.node.mine(2);
    expect(h.node.tokenBalance(address.address, "USDC")).toBe(30_000_000n);

    const [row] = await sweepUntilSettled(sweeper(), merchant, 1);
    expect(row?.state).toBe("confirmed");
    const attempts = await attemptsOf(opened.id);
    expect(attempts.map((x) => x.state)).toEqual(["mined"]);
    expect(row?.tx_hash).toBe(attempts[0]?.tx_hash);
    expect(h.node.tokenBalance(h.treasury, "USDC")).toBe(treasuryUsdc + 30_000_000n);
    expect(h.node.balance(ata(address.address))).toBe(0n);
  }, 120_000);

  it("signs a sweep whose blockhash expired again exactly once, with the deposit key, and it lands once", async () => {
    const { merchant, address, treasuryUsdc } = await oneUsdcDeposit(12_000_000n);
    const s = sweeper();
    h.node.dropIncoming(true);
    await s.tick("SOLANA"); // opens
    await s.tick("SOLANA"); // signs, stores, broadcasts (lost)
    const [opened] = await sweepsOf(merchant);
    if (!opened) throw new Error("no sweep opened");
    const [first] = await attemptsOf(opened.id);
    if (!first) throw new Error("no sweep attempt stored");
    await pipeline.tick("SOLANA"); // rebroadcast (lost too)
    // Finalized past its last valid height (150 blocks after its blockhash, 32 to finalize).
    h.node.mine(200);
    await pipeline.tick("SOLANA");
    expect((await attemptsOf(opened.id)).map((x) => x.state)).toEqual(["expired"]);
    // The pipeline never signs a sweep (it has no deposit key): the send waits for the sweeper.
    await pipeline.tick("SOLANA");
    expect(await attemptsOf(opened.id)).toHaveLength(1);
    const { rows } = await t.db.query<{ state: string }>("SELECT state FROM treasury_sends WHERE id = $1", [
      opened.send_id,
    ]);
    expect(rows[0]?.state).toBe("queued");

    h.node.dropIncoming(false);
    const [row] = await sweepUntilSettled(s, merchant, 1);
    expect(row?.state).toBe("confirmed");
    const attempts = await attemptsOf(opened.id);
    expect(attempts.map((x) => x.state)).toEqual(["expired", "mined"]);
    expect(attempts[1]?.tx_hash).not.toBe(first.tx_hash);
    expect(h.node.transaction(first.tx_hash)).toBeUndefined();
    expect(landed(attempts[1]?.tx_hash ?? "").signers).toEqual([h.treasury, address.address]);
    expect(h.node.tokenBalance(h.treasury, "USDC")).toBe(treasuryUsdc + 12_000_000n);
    // More passes and slots change nothing: no third signature, nothing moves twice.
    for (let i = 0; i < 3; i++) {
      await s.tick("SOLANA");
      await pipeline.tick("SOLANA");
      h.node.mine();
    }
    expect(await attemptsOf(opened.id)).toHaveLength(2);
    expect(h.node.tokenBalance(h.treasury, "USDC")).toBe(treasuryUsdc + 12_000_000n);
  }, 120_000);

  it("watches a confirmed sweep again when a reorg drops its block: the same transaction lands once", async () => {
    const { merchant, address, treasuryUsdc } = await oneUsdcDeposit(11_000_000n);
    const s = sweeper();
    const [row] = await sweepUntilSettled(s, merchant, 1);
    const tx = h.node.transaction(row?.tx_hash ?? "");
    if (!row?.send_id || !row.tx_hash || !tx) throw new Error("the sweep did not land");
    h.node.reorg(h.node.head() - tx.slot + 1, { drop: [row.tx_hash] });
    expect(h.node.tokenBalance(h.treasury, "USDC")).toBe(treasuryUsdc);
    expect(h.node.tokenBalance(address.address, "USDC")).toBe(11_000_000n);

    await until(t.db, [row.send_id], "broadcast", () => pipeline.tick("SOLANA"));
    await until(t.db, [row.send_id], "confirmed", async () => {
      await s.tick("SOLANA");
      await pipeline.tick("SOLANA");
      h.node.mine();
    });
    // Not signed again: the same signature landed on the new fork, and moved the tokens once.
    expect((await attemptsOf(row.id)).map((x) => [x.tx_hash, x.state])).toEqual([[row.tx_hash, "mined"]]);
    expect(h.node.transaction(row.tx_hash)?.slot).toBeGreaterThan(tx.slot);
    expect(h.node.tokenBalance(h.treasury, "USDC")).toBe(treasuryUsdc + 11_000_000n);
    expect(h.node.balance(ata(address.address))).toBe(0n);
  }, 120_000);
});
