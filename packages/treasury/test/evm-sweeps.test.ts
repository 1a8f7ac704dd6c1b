import { tokenBalance } from "@mp/test-nodes/evm";
import { bytesToHex, type Hex, keccak256, parseTransaction } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { describe, expect, it } from "vitest";
import { createEvmSweeper, type EvmSweeper } from "../../../chains/evm/src/sweep/evm-sweeper.ts";
import {
  createDepositMerchant,
  type DepositMerchant,
  depositAndCredit,
  testDepositKeys,
} from "./support/evm-deposits.ts";
import { type EvmTreasuryHarness, startEvmTreasury } from "./support/evm-treasury.ts";
import { moneyBeforeSweeps, type SweepRowColumns } from "./support/sweep-rows.ts";
import { testSweeperOptions, useSweepTest } from "./support/use-sweep-test.ts";

const {
  t,
  h,
  pipeline,
  sweepers,
  settle: sweepUntilSettled,
} = useSweepTest<EvmTreasuryHarness, EvmSweeper, SweepRow>("BASE", (db) => startEvmTreasury(db), {
  mine: (harness) => harness.node.mine(1),
  read: (_db, merchant) => sweepsOf(merchant),
});

const sweeper = (onReady?: (ids: string[]) => void): EvmSweeper => {
  const s = createEvmSweeper({
    ...testSweeperOptions(t.db, h),
    ...(onReady ? { onReady } : {}),
  });
  sweepers.push(s);
  return s;
};

interface SweepRow extends SweepRowColumns {
  top_up_send_id: string | null;
  top_up_state: string | null;
  top_up_purpose: string | null;
}

const sweepsOf = async (merchant: DepositMerchant): Promise<SweepRow[]> => {
  const { rows } = await t.db.query<SweepRow>(
    `SELECT w.id, w.deposit_address, w.asset, w.state, w.covered_raw::text, w.amount_raw::text, w.fee_paid_raw::text,
            w.tx_hash, w.top_up_send_id, s.state AS top_up_state, s.purpose AS top_up_purpose
       FROM treasury_sweeps w JOIN destinations d ON d.id = w.destination_id
       LEFT JOIN treasury_sends s ON s.id = w.top_up_send_id
      WHERE d.merchant_id = $1 ORDER BY w.deposit_address, w.asset`,
    [merchant.merchantId],
  );
  return rows;
};

const ethBalance = (address: string) => h.node.publicClient.getBalance({ address: address as Hex });

describe("EVM sweeps on anvil", () => {
  it("tops up gas, sweeps token and native deposits into the treasury, leaves the ledger alone", async () => {
    const merchant = await createDepositMerchant(t.db, 5);
    const [a, b, c, below, native] = merchant.addresses;
    await depositAndCredit(t.db, h.node, h.usdc, merchant, [
      { address: a, asset: "USDC", amount: 25_000_000n },
      { address: b, asset: "USDC", amount: 40_000_000n },
      { address: b, asset: "USDC", amount: 2_500_000n },
      { address: c, asset: "USDC", amount: 15_000_000n },
      // Below the default 10 USDC threshold: stays where it is.
      { address: below, asset: "USDC", amount: 4_000_000n },
      { address: native, asset: "ETH", amount: 5n * 10n ** 17n },
    ]);
    const treasuryUsdc = await tokenBalance(h.node, h.usdc, h.treasury);
    const money = await moneyBeforeSweeps(t.db, merchant);

    const rows = await sweepUntilSettled(sweeper(), merchant, 4);

    expect(rows.map((r) => [r.asset, r.state])).toEqual(
      expect.arrayContaining([
        ["USDC", "confirmed"],
        ["USDC", "confirmed"],
        ["USDC", "confirmed"],
        ["ETH", "confirmed"],
      ]),
    );
    expect(rows.some((r) => r.deposit_address === below.address)).toBe(false);
    expect(await tokenBalance(h.node, h.usdc, h.treasury)).toBe(treasuryUsdc + 82_500_000n);
    for (const address of [a, b, c]) expect(await tokenBalance(h.node, h.usdc, address.address)).toBe(0n);
    expect(await tokenBalance(h.node, h.usdc, below.address)).toBe(4_000_000n);
    for (const row of rows) {
      expect(BigInt(row.fee_paid_raw ?? "0")).toBeGreaterThan(0n);
      const receipt = await h.node.publicClient.getTransactionReceipt({ hash: row.tx_hash as Hex });
      expect(receipt.status).toBe("success");
      expect(receipt.from.toLowerCase()).toBe(row.deposit_address.toLowerCase());
      expect(BigInt(row.fee_paid_raw ?? "0")).toBe(receipt.gasUsed * receipt.effectiveGasPrice);
      if (row.asset === "USDC") {
        expect(row.top_up_purpose).toBe("top_up");
        expect(row.top_up_state).toBe("confirmed");
      } else {
        // The native deposit paid its own gas: what it did not use stays as dust, explained by the row.
        expect(row.top_up_send_id).toBeNull();
        const tx = await h.node.publicClient.getTransaction({ hash: row.tx_hash as Hex });
        expect(tx.value).toBe(BigInt(row.amount_raw));
        expect(await ethBalance(native.address)).toBe(
          BigInt(row.covered_raw) - BigInt(row.amount_raw) - BigInt(row.fee_paid_raw ?? "0"),
        );
      }
    }
    await money.expectSweptOnce(4, () => sweeper().tick("BASE"));
  }, 120_000);

  it("tops up a token sweep whose address also holds a native deposit, so both sweeps land (money fuzz)", async () => {
    // Found by the money fuzz (evm-sweeps): the token sweep counted the customer's ETH as its gas and
    // opened with no top-up; whichever of the two sweeps signed second lacked funds and waited forever.
    const merchant = await createDepositMerchant(t.db, 1);
    const [address] = merchant.addresses;
    await depositAndCredit(t.db, h.node, h.usdc, merchant, [
      { address, asset: "USDC", amount: 20_000_000n },
      { address, asset: "ETH", amount: 2n * 10n ** 17n },
    ]);
    const treasuryUsdc = await tokenBalance(h.node, h.usdc, h.treasury);

    const rows = await sweepUntilSettled(sweeper(), merchant, 2);

    expect(rows.map((r) => [r.asset, r.state]).sort()).toEqual([
      ["ETH", "confirmed"],
      ["USDC", "confirmed"],
    ]);
    const usdc = rows.find((r) => r.asset === "USDC");
    expect(usdc?.top_up_state).toBe("confirmed");
    expect(await tokenBalance(h.node, h.usdc, h.treasury)).toBe(treasuryUsdc + 20_000_000n);
    const eth = rows.find((r) => r.asset === "ETH");
    expect(BigInt(eth?.covered_raw ?? "0")).toBe(2n * 10n ** 17n);
  }, 120_000);

  it("resumes after a crash between the confirmed top-up and the sweep without a second top-up", async () => {
    const merchant = await createDepositMerchant(t.db, 1);
    const [address] = merchant.addresses;
    await depositAndCredit(t.db, h.node, h.usdc, merchant, [{ address, asset: "USDC", amount: 30_000_000n }]);
    const crashing = sweeper(() => {
      throw new Error("crash: the signer died before signing the sweep");
    });
    // Until the top-up is confirmed and the sweep ready: the dying sweeper signs nothing.
    const deadline = Date.now() + 60_000;
    for (;;) {
      const crashed = await crashing.tick("BASE").then(
        () => false,
        () => true,
      );
      if (crashed) break;
      await pipeline.tick("BASE");
      await h.node.mine(1);
      if (Date.now() > deadline) throw new Error("the top-up never confirmed");
    }
    await crashing.stop();
    const [opened] = await sweepsOf(merchant);
    expect(opened?.state).toBe("ready");
    expect(opened?.top_up_state).toBe("confirmed");
    const gasBefore = await ethBalance(address.address);

    const [row] = await sweepUntilSettled(sweeper(), merchant, 1);
    expect(row?.state).toBe("confirmed");
    expect(row?.top_up_send_id).toBe(opened?.top_up_send_id);
    const { rows } = await t.db.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM treasury_sends WHERE purpose = 'top_up' AND lower(to_address) = lower($1)",
      [address.address],
    );
    expect(rows[0]?.n).toBe(1);
    expect(await tokenBalance(h.node, h.usdc, address.address)).toBe(0n);
    // The gas the sweep paid came out of the one top-up.
    expect(await ethBalance(address.address)).toBe(gasBefore - BigInt(row?.fee_paid_raw ?? "0"));
  }, 120_000);

  it("puts a confirmed sweep whose block is reorged out back to sweeping, and confirms it again without a second sweep", async () => {
    const merchant = await createDepositMerchant(t.db, 1);
    const [address] = merchant.addresses;
    await depositAndCredit(t.db, h.node, h.usdc, merchant, [{ address, asset: "USDC", amount: 12_000_000n }]);
    const treasuryUsdc = await tokenBalance(h.node, h.usdc, h.treasury);
    const s = sweeper();
    const [swept] = await sweepUntilSettled(s, merchant, 1);
    expect(swept?.state).toBe("confirmed");
    const receipt = await h.node.publicClient.getTransactionReceipt({ hash: swept?.tx_hash as Hex });
    // A new branch from the sweep's block on: its transfer is in none of the new blocks.
    await h.node.reorg(Number((await h.node.blockNumber()) - Number(receipt.blockNumber)) + 1);
    expect(await tokenBalance(h.node, h.usdc, h.treasury)).toBe(treasuryUsdc);
    await pipeline.tick("BASE");
    await s.tick("BASE");
    const [reopened] = await sweepsOf(merchant);
    expect(reopened).toMatchObject({ id: swept?.id, state: "sweeping", fee_paid_raw: null });
    // Nothing new is opened for the address while its sweep is out again.
    expect(await sweepsOf(merchant)).toHaveLength(1);

    const [again] = await sweepUntilSettled(s, merchant, 1);
    expect(again).toMatchObject({ id: swept?.id, state: "confirmed", tx_hash: swept?.tx_hash });
    expect(BigInt(again?.fee_paid_raw ?? "0")).toBeGreaterThan(0n);
    expect(await tokenBalance(h.node, h.usdc, h.treasury)).toBe(treasuryUsdc + 12_000_000n);
    const { rows } = await t.db.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM treasury_sends WHERE purpose = 'sweep' AND idempotency_key = $1",
      [`sweep:${swept?.id}`],
    );
    expect(rows[0]?.n).toBe(1);
  }, 120_000);

  it("fills the nonce of a sweep the node refused for good from its deposit address, so the next sweep lands", async () => {
    const merchant = await createDepositMerchant(t.db, 1);
    const [address] = merchant.addresses;
    await depositAndCredit(t.db, h.node, h.usdc, merchant, [{ address, asset: "ETH", amount: 5n * 10n ** 17n }]);
    const s = sweeper();
    await h.node.setAutomine(false);
    try {
      await s.tick("BASE"); // opens the sweep
      await s.tick("BASE"); // signs, stores and broadcasts it (not mined: automine is off)
      const [signed] = await sweepsOf(merchant);
      expect(signed?.state).toBe("sweeping");
      // The stored attempt becomes one the node refuses every time (less gas than any transfer),
      // signed by the deposit key at the same nonce; the good one leaves the mempool unmined.
      const { rows: attempts } = await t.db.query<{ id: string; tx_hash: Hex; raw: Hex; path: string }>(
        `SELECT a.id, a.tx_hash, a.raw, d.derivation_path AS path FROM treasury_attempts a
           JOIN treasury_attempt_sends x ON x.attempt_id = a.id JOIN treasury_sweeps w ON w.send_id = x.send_id
           JOIN destinations d ON d.id = w.destination_id WHERE w.id = $1`,
        [signed?.id],
      );
      const [good] = attempts;
      await h.node.testClient.dropTransaction({ hash: good?.tx_hash as Hex });
      const key = testDepositKeys().forPath("evm", good?.path as string);
      const parsed = parseTransaction(good?.raw as Hex);
      const raw = await privateKeyToAccount(bytesToHex(key.privateKey)).signTransaction({
        type: "eip1559",
        chainId: parsed.chainId ?? 0,
        nonce: parsed.nonce ?? 0,
        to: parsed.to ?? h.treasury,
        value: parsed.value ?? 0n,
        gas: 20_000n,
        maxFeePerGas: parsed.maxFeePerGas ?? 0n,
        maxPriorityFeePerGas: parsed.maxPriorityFeePerGas ?? 0n,
      });
      await t.db.query("UPDATE treasury_attempts SET raw = $2, tx_hash = $3 WHERE id = $1", [
        good?.id,
        raw,
        keccak256(raw),
      ]);

      // The pipeline fails it; the sweeper fills its nonce, then sweeps the deposit again at the next one.
      const rows = await sweepUntilSettled(s, merchant, 2);
      const failed = rows.find((r) => r.id === signed?.id);
      expect(failed?.state).toBe("failed");
      const { rows: why } = await t.db.query<{ reason: string }>("SELECT reason FROM treasury_sweeps WHERE id = $1", [
        failed?.id,
      ]);
      expect(why[0]?.reason).toMatch(/intrinsic gas too low/i);
      const again = rows.find((r) => r.id !== signed?.id);
      expect(again?.state).toBe("confirmed");
      const { rows: fillers } = await t.db.query<{ tx_hash: Hex; state: string; nonce: number }>(
        `SELECT tx_hash, state, (guard->>'nonce')::int AS nonce FROM treasury_attempts WHERE guard->>'fills' = $1`,
        [good?.id],
      );
      expect(fillers.map((f) => [f.state, f.nonce])).toEqual([["mined", parsed.nonce]]);
      const filler = await h.node.publicClient.getTransaction({ hash: fillers[0]?.tx_hash as Hex });
      const from = address.address.toLowerCase();
      expect(filler).toMatchObject({ from, to: from, value: 0n });
      const swept = await h.node.publicClient.getTransaction({ hash: again?.tx_hash as Hex });
      expect(swept).toMatchObject({ from, nonce: (parsed.nonce ?? 0) + 1 });
    } finally {
      await h.node.setAutomine(true);
    }
  }, 120_000);

  it("a settled sweep whose receipt the node cannot give now does not hold up another merchant's in the same pass", async () => {
    const poisoned = await createDepositMerchant(t.db, 1);
    const other = await createDepositMerchant(t.db, 1);
    const [bad] = poisoned.addresses;
    const [good] = other.addresses;
    const eth = 5n * 10n ** 17n;
    await depositAndCredit(t.db, h.node, h.usdc, poisoned, [{ address: bad, asset: "ETH", amount: eth }]);
    await depositAndCredit(t.db, h.node, h.usdc, other, [{ address: good, asset: "ETH", amount: eth }]);
    // The node answers every receipt of the poisoned address's transactions with an error, in
    // whichever batch it comes (the sweeper reads the settled sweeps' receipts together).
    let failing = true;
    const fromBad = async (hash: unknown) =>
      (
        await t.db.query("SELECT 1 FROM treasury_attempts WHERE tx_hash = $1 AND lower(from_address) = lower($2)", [
          hash,
          bad.address,
        ])
      ).rows.length > 0;
    const node: typeof globalThis.fetch = async (url, init) => {
      const response = await fetch(url, init);
      if (!failing) return response;
      const body = JSON.parse(String(init?.body)) as unknown;
      const calls = (Array.isArray(body) ? body : [body]) as Array<{ id: unknown; method: string; params: unknown[] }>;
      const refused = new Set<unknown>();
      for (const c of calls)
        if (c.method === "eth_getTransactionReceipt" && (await fromBad(c.params[0]))) refused.add(c.id);
      if (refused.size === 0) return response;
      const answered = (await response.json()) as unknown;
      const answers = ((Array.isArray(answered) ? answered : [answered]) as Array<{ id: unknown }>).map((a) =>
        refused.has(a.id) ? { jsonrpc: "2.0", id: a.id, error: { code: -32603, message: "receipt unavailable" } } : a,
      );
      return new Response(JSON.stringify(Array.isArray(answered) ? answers : answers[0]), {
        headers: { "content-type": "application/json" },
      });
    };
    const s = createEvmSweeper({ ...testSweeperOptions(t.db, h), fetch: node });
    sweepers.push(s);
    const deadline = Date.now() + 60_000;
    for (;;) {
      // Before: the failed receipt threw the whole pass (this tick), every pass.
      await s.tick("BASE");
      await pipeline.tick("BASE");
      await h.node.mine(1);
      if ((await sweepsOf(other))[0]?.state === "confirmed") break;
      if (Date.now() > deadline) throw new Error("the other merchant's sweep was never finished");
    }
    // The poisoned one landed too: only finishing it waits, for a pass that can read its receipt.
    const [waiting] = await sweepsOf(poisoned);
    expect(waiting?.state).toBe("sweeping");
    failing = false;
    const rows = await sweepUntilSettled(s, poisoned, 1);
    expect(rows.map((r) => r.state)).toEqual(["confirmed"]);
    expect(BigInt(rows[0]?.fee_paid_raw ?? "0")).toBeGreaterThan(0n);
  }, 120_000);
});
