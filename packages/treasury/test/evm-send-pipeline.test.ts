import { evmSendCheck } from "@mp/chain-evm";
import { minedTransaction, tokenBalance, transferToken } from "@mp/test-nodes/evm";
import { bytesToHex, encodeAbiParameters, type Hex, keccak256, pad, parseTransaction } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { afterEach, describe, expect, it } from "vitest";
import { eventually } from "../../../test/support/eventually.ts";
import { insertAttempt } from "../src/attempt-store.ts";
import type { ChainSender } from "../src/chain-sender.ts";
import { readChainRecords } from "../src/reconcile/our-records.ts";
import type { SendPipeline } from "../src/send-pipeline.ts";
import { findSend, requestSend, type SendRequest } from "../src/send-requests.ts";
import { freshAddress, startEvmTreasury, until } from "./support/evm-treasury.ts";
import { testPipelines } from "./support/test-pipelines.ts";
import { useTreasuryHarness } from "./support/use-treasury.ts";

const { t, h } = useTreasuryHarness(startEvmTreasury);
const pipelines = testPipelines("BASE", () => t.db);

afterEach(async () => {
  await pipelines.stopAll();
});

const pipeline = (sender: ChainSender = h.sender(), pollIntervalMs?: number): SendPipeline =>
  pipelines.start(sender, pollIntervalMs === undefined ? {} : { pollIntervalMs });

let keys = 0;
const send = async (overrides: Partial<SendRequest> & Pick<SendRequest, "asset" | "to" | "amountRaw">) =>
  (
    await requestSend(
      t.db,
      {
        chain: "BASE",
        purpose: "operator",
        idempotencyKey: `evm-${keys++}`,
        ...overrides,
      },
      evmSendCheck,
    )
  ).send;

/** One pass, then a block (automine only mines when a transaction arrives: confirmations need more). */
const tickAndMine = (p: SendPipeline) => async () => {
  await p.tick("BASE");
  await h.node.mine(1);
};

const ethBalance = (address: string) => h.node.publicClient.getBalance({ address: address as Hex });

interface AttemptRow {
  id: string;
  tx_hash: Hex;
  state: string;
  nonce: number;
  replaces: string | null;
  fee: Record<string, string>;
}

const attemptsOf = async (sendId: string): Promise<AttemptRow[]> => {
  const { rows } = await t.db.query<AttemptRow>(
    `SELECT a.id, a.tx_hash, a.state, (a.guard->>'nonce')::int AS nonce, a.replaces, a.fee
       FROM treasury_attempts a JOIN treasury_attempt_sends x ON x.attempt_id = a.id
      WHERE x.send_id = $1 ORDER BY a.created_at`,
    [sendId],
  );
  return rows;
};

/** The receipts the chain holds for these hashes (null: not in the canonical chain). */
const receipts = (hashes: Hex[]) =>
  Promise.all(
    hashes.map((hash) =>
      h.node.publicClient.getTransactionReceipt({ hash }).catch((error: unknown) => {
        if (error instanceof Error && error.name === "TransactionReceiptNotFoundError") return null;
        throw error;
      }),
    ),
  );

describe("the EVM send pipeline on anvil", () => {
  it("sends the native coin and a token, each confirmed once with its confirmations", async () => {
    const p = pipeline();
    const to = freshAddress();
    const eth = await send({ asset: "ETH", to, amountRaw: 1_234_000_000_000_000n });
    const usdc = await send({ asset: "USDC", to, amountRaw: 42_500_000n });
    await p.tick("BASE");
    // Broadcast and mined (automine), not yet confirmed: 2 confirmations are needed.
    expect((await findSend(t.db, eth.id))?.state).toBe("broadcast");
    await until(t.db, [eth.id, usdc.id], "confirmed", tickAndMine(p));
    expect(await ethBalance(to)).toBe(1_234_000_000_000_000n);
    expect(await tokenBalance(h.node, h.usdc, to)).toBe(42_500_000n);
    for (const id of [eth.id, usdc.id]) {
      const attempts = await attemptsOf(id);
      expect(attempts.map((a) => a.state)).toEqual(["mined"]);
      const [receipt] = await receipts(attempts.map((a) => a.tx_hash));
      expect(receipt?.status).toBe("success");
      expect((await findSend(t.db, id))?.txHash).toBe(attempts[0]?.tx_hash);
    }
  });

  it("signs 200 concurrent requests from one address with every nonce used once, no gap, all landed", async () => {
    const p = pipeline();
    const before = await h.node.publicClient.getTransactionCount({ address: h.treasury, blockTag: "latest" });
    const to = freshAddress();
    const sends = await Promise.all(
      Array.from({ length: 200 }, (_, i) => send({ asset: "USDC", to, amountRaw: BigInt(1_000 + i) })),
    );
    const ids = sends.map((s) => s.id);
    // Passes racing each other in this process too: the nonce row and the sends' locks keep them apart.
    await Promise.all([p.tick("BASE"), p.tick("BASE")]);
    await until(t.db, ids, "confirmed", tickAndMine(p));
    const { rows } = await t.db.query<{ nonce: number; tx_hash: Hex; n: number }>(
      `SELECT (a.guard->>'nonce')::int AS nonce, a.tx_hash, count(*) OVER (PARTITION BY a.guard->>'nonce')::int AS n
         FROM treasury_attempts a JOIN treasury_attempt_sends x ON x.attempt_id = a.id
        WHERE x.send_id = ANY($1::text[]) ORDER BY 1`,
      [ids],
    );
    expect(rows).toHaveLength(200);
    expect(rows.every((r) => r.n === 1)).toBe(true);
    expect(rows.map((r) => r.nonce)).toEqual(Array.from({ length: 200 }, (_, i) => before + i));
    const after = await h.node.publicClient.getTransactionCount({ address: h.treasury, blockTag: "latest" });
    expect(after).toBe(before + 200);
    const landed = await receipts(rows.map((r) => r.tx_hash));
    expect(landed.every((r) => r?.status === "success")).toBe(true);
    expect(await tokenBalance(h.node, h.usdc, to)).toBe(200n * 1_000n + (199n * 200n) / 2n);
    const { rows: nonceRow } = await t.db.query<{ next_nonce: string }>(
      "SELECT next_nonce::text FROM treasury_nonces WHERE chain = 'BASE'",
    );
    expect(nonceRow).toEqual([{ next_nonce: String(after) }]);
  }, 120_000);

  it("replaces a send stuck below the base fee with both fees bumped, and exactly one of its hashes lands", async () => {
    const p = pipeline();
    await h.node.setAutomine(false);
    try {
      const to = freshAddress();
      const stuck = await send({ asset: "USDC", to, amountRaw: 7_000_000n });
      await p.tick("BASE");
      const [first] = await attemptsOf(stuck.id);
      expect(first?.state).toBe("broadcast");
      // The next blocks' base fee far above what the attempt offers: it stays in the mempool.
      const cap = BigInt(first?.fee.maxFeePerGas ?? "0");
      await h.node.testClient.setNextBlockBaseFeePerGas({ baseFeePerGas: cap * 20n });
      await h.node.mine(1);
      expect(await receipts([first?.tx_hash as Hex])).toEqual([null]);
      // Three blocks without it: stuck.
      await h.node.mine(3);
      await p.tick("BASE");
      const attempts = await attemptsOf(stuck.id);
      expect(attempts).toHaveLength(2);
      const [old, replacement] = attempts as [AttemptRow, AttemptRow];
      expect(replacement.replaces).toBe(old.id);
      expect(replacement.nonce).toBe(old.nonce);
      for (const field of ["maxFeePerGas", "maxPriorityFeePerGas"]) {
        expect(BigInt(replacement.fee[field] ?? "0") * 8n).toBeGreaterThanOrEqual(BigInt(old.fee[field] ?? "0") * 9n);
      }
      await until(t.db, [stuck.id], "confirmed", async () => {
        await h.node.mine(1);
        await p.tick("BASE");
      });
      const final = await attemptsOf(stuck.id);
      const landed = await receipts(final.map((a) => a.tx_hash));
      expect(landed.filter((r) => r !== null)).toHaveLength(1);
      expect(final.find((a) => a.state === "mined")?.tx_hash).toBe(landed.find((r) => r)?.transactionHash);
      expect(final.filter((a) => a.state !== "mined").map((a) => a.state)).toEqual(["replaced"]);
      expect(await tokenBalance(h.node, h.usdc, to)).toBe(7_000_000n);
    } finally {
      await h.node.setAutomine(true);
    }
  }, 60_000);

  it("bumps no fee of a send that waits behind its own address's landing nonces, one block at a time", async () => {
    const p = pipeline();
    const { gasLimit } = await h.node.publicClient.getBlock();
    await h.node.setAutomine(false);
    try {
      const to = freshAddress();
      const sends = [];
      for (let i = 0; i < 4; i++) sends.push(await send({ asset: "USDC", to, amountRaw: BigInt(10_000 + i) }));
      const ids = sends.map((s) => s.id);
      await p.tick("BASE");
      // Room for one transfer a block: the last waits three blocks and more behind the others, each
      // of which lands meanwhile. Only blocks without a landing of ours would make it stuck.
      await h.node.testClient.setBlockGasLimit({ gasLimit: 80_000n });
      await until(t.db, ids, "confirmed", tickAndMine(p));
      const attempts = (await Promise.all(ids.map(attemptsOf))).flat();
      expect(attempts.map((a) => a.replaces)).toEqual([null, null, null, null]);
      const heights = await receipts(attempts.map((a) => a.tx_hash));
      expect(new Set(heights.map((r) => r?.blockNumber)).size).toBe(4);
      expect(await tokenBalance(h.node, h.usdc, to)).toBe(4n * 10_000n + 6n);
    } finally {
      await h.node.testClient.setBlockGasLimit({ gasLimit });
      await h.node.mine(1);
      await h.node.setAutomine(true);
    }
  }, 60_000);

  it("watches a confirmed send whose block is reorged out again, and confirms it again without a second transfer", async () => {
    const p = pipeline();
    const to = freshAddress();
    const sent = await send({ asset: "USDC", to, amountRaw: 3_300_000n });
    await until(t.db, [sent.id], "confirmed", tickAndMine(p));
    const [attempt] = await attemptsOf(sent.id);
    const [receipt] = await receipts([attempt?.tx_hash as Hex]);
    const head = await h.node.blockNumber();
    // A new branch from below the send's block: the send's transaction is in none of its blocks.
    await h.node.reorg(head - Number(receipt?.blockNumber) + 1);
    expect(await tokenBalance(h.node, h.usdc, to)).toBe(0n);
    await p.tick("BASE");
    const reorged = await findSend(t.db, sent.id);
    expect(reorged).toMatchObject({ state: "broadcast", confirmedAt: null, txHash: null });
    await until(t.db, [sent.id], "confirmed", tickAndMine(p));
    expect(await tokenBalance(h.node, h.usdc, to)).toBe(3_300_000n);
    const attempts = await attemptsOf(sent.id);
    const landed = await receipts(attempts.map((a) => a.tx_hash));
    expect(landed.filter((r) => r?.status === "success")).toHaveLength(1);
    // The same nonce throughout: whichever attempt landed, no second transfer was ever possible.
    expect(new Set(attempts.map((a) => a.nonce)).size).toBe(1);
  }, 60_000);

  it("fails a send mined reverted only once that block has the chain's confirmations", async () => {
    const p = pipeline();
    const to = freshAddress();
    const sent = await send({ asset: "USDC", to, amountRaw: 2_000_000n });
    await h.node.setAutomine(false);
    // The treasury's USDC as the token stores it (TestToken: balanceOf is slot 3).
    const slot = keccak256(encodeAbiParameters([{ type: "address" }, { type: "uint256" }], [h.treasury, 3n]));
    const held = await tokenBalance(h.node, h.usdc, h.treasury);
    const setHeld = (amount: bigint) =>
      h.node.testClient.setStorageAt({
        address: h.usdc.address,
        index: slot,
        value: pad(`0x${amount.toString(16)}`, { size: 32 }),
      });
    try {
      await until(t.db, [sent.id], "broadcast", () => p.tick("BASE"));
      // Gone when the block is made: mined reverted, one confirmation of two.
      await setHeld(0n);
      await h.node.mine(1);
      const [attempt] = await attemptsOf(sent.id);
      const [receipt] = await receipts([attempt?.tx_hash as Hex]);
      expect(receipt?.status).toBe("reverted");
      await p.tick("BASE");
      expect(await findSend(t.db, sent.id)).toMatchObject({ state: "broadcast", reason: null });
      // Two deep: final, with the chain's reason.
      await h.node.mine(1);
      await p.tick("BASE");
      const failed = await findSend(t.db, sent.id);
      expect(failed?.state).toBe("failed");
      expect(failed?.reason).toMatch(/^reverted on chain/);
      expect(await tokenBalance(h.node, h.usdc, to)).toBe(0n);
    } finally {
      await setHeld(held);
      await h.node.setAutomine(true);
    }
  }, 60_000);

  it("fails an attempt the node refuses for good with the node's reason, fills its nonce, and the sends after it land", async () => {
    const p = pipeline();
    const sender = h.sender();
    const to = freshAddress();
    const refused = await send({ asset: "ETH", to, amountRaw: 1_000n });
    // Stored as the pipeline stores an attempt (nonce allocated, attempt row), but signed with less
    // gas than any transfer needs: the node refuses it at broadcast, every time.
    const order = { id: refused.id, chain: "BASE" as const, asset: "ETH", to, amountRaw: 1_000n };
    const prepared = await sender.prepare([order]);
    const account = privateKeyToAccount(bytesToHex(h.keys.key("evm").privateKey));
    const { attemptId, nonce } = await t.db.tx(async (tx) => {
      const signed = await sender.sign(tx, [order], prepared);
      const good = parseTransaction(signed.raw as Hex);
      const raw = await account.signTransaction({
        type: "eip1559",
        chainId: good.chainId ?? 0,
        nonce: good.nonce ?? 0,
        to: good.to ?? to,
        value: good.value ?? 0n,
        gas: 20_000n,
        maxFeePerGas: good.maxFeePerGas ?? 0n,
        maxPriorityFeePerGas: good.maxPriorityFeePerGas ?? 0n,
      });
      const id = await insertAttempt(tx, "BASE", { ...signed, raw, txHash: keccak256(raw) }, null);
      return { attemptId: id, nonce: good.nonce ?? -1 };
    });
    const later = await send({ asset: "ETH", to: freshAddress(), amountRaw: 2_000n });

    await until(t.db, [later.id], "confirmed", tickAndMine(p));
    const failed = await findSend(t.db, refused.id);
    expect(failed?.state).toBe("failed");
    expect(failed?.reason).toMatch(/intrinsic gas too low/i);
    expect(await ethBalance(to)).toBe(0n);
    expect((await attemptsOf(refused.id)).map((a) => a.state)).toEqual(["failed"]);
    expect((await attemptsOf(later.id)).map((a) => a.nonce)).toEqual([nonce + 1]);
    // The refused nonce went to a zero-value transfer to the treasury itself, recorded as its filler.
    const { rows } = await t.db.query<{ tx_hash: Hex; state: string; nonce: number }>(
      `SELECT tx_hash, state, (guard->>'nonce')::int AS nonce FROM treasury_attempts WHERE guard->>'fills' = $1`,
      [attemptId],
    );
    expect(rows.map((r) => [r.state, r.nonce])).toEqual([["mined", nonce]]);
    const filler = await h.node.publicClient.getTransaction({ hash: rows[0]?.tx_hash as Hex });
    expect(filler).toMatchObject({ from: h.treasury.toLowerCase(), to: h.treasury.toLowerCase(), value: 0n });
    expect(await h.node.publicClient.getTransactionCount({ address: h.treasury })).toBe(nonce + 2);
    // Never on chain, so no fee to find: `reconcile chains` does not look for it on the node (the
    // fault search found it reported as "mined transactions the node does not have").
    const records = await readChainRecords(t.db, "BASE");
    const refusedHash = (await attemptsOf(refused.id))[0]?.tx_hash;
    expect(refusedHash).toBeDefined();
    expect(records.minedAttempts.map((a) => a.txHash)).not.toContain(refusedHash);
    expect(records.minedAttempts.map((a) => a.txHash)).toContain(rows[0]?.tx_hash);
  }, 90_000);

  it("keeps a send the treasury cannot cover waiting with a reason, and sends it after a top-up", async () => {
    const p = pipeline();
    const held = await tokenBalance(h.node, h.usdc, h.treasury);
    const to = freshAddress();
    const big = await send({ asset: "USDC", to, amountRaw: held + 5_000_000n });
    await p.tick("BASE");
    const waiting = await findSend(t.db, big.id);
    expect(waiting?.state).toBe("waiting_funds");
    expect(waiting?.reason).toMatch(/USDC/);
    expect(await attemptsOf(big.id)).toEqual([]);
    await p.tick("BASE");
    expect((await findSend(t.db, big.id))?.state).toBe("waiting_funds");
    await transferToken(h.node, h.usdc, h.treasury, 5_000_000n);
    await until(t.db, [big.id], "confirmed", tickAndMine(p));
    expect(await tokenBalance(h.node, h.usdc, to)).toBe(held + 5_000_000n);
    expect(await tokenBalance(h.node, h.usdc, h.treasury)).toBe(0n);
    // Refill for the tests that follow.
    await transferToken(h.node, h.usdc, h.treasury, 1_000_000n * 10n ** 6n);
  }, 60_000);

  describe("after a crash", () => {
    /** A signer that dies at `when`: the pass goes no further, nothing after it is recorded. */
    const dying = (when: "before-broadcast" | "after-broadcast"): ChainSender => {
      const real = h.sender();
      return {
        ...real,
        broadcast: async (attempt) => {
          if (when === "after-broadcast") await real.broadcast(attempt);
          throw new Error(`killed ${when}`);
        },
      };
    };

    for (const when of ["before-broadcast", "after-broadcast"] as const) {
      it(`lands exactly one transfer per request when the signer dies ${when}`, async () => {
        const crashed = pipeline(dying(when));
        const to = freshAddress();
        const sends = [
          await send({ asset: "USDC", to, amountRaw: 11_000_000n }),
          await send({ asset: "ETH", to, amountRaw: 10n ** 15n }),
        ];
        const ids = sends.map((s) => s.id);
        const nonceBefore = await h.node.publicClient.getTransactionCount({ address: h.treasury });
        await crashed.tick("BASE");
        await crashed.stop();
        // Stored and signed, not recorded as broadcast: on chain already (after-broadcast) or not at all.
        const stored = (await Promise.all(ids.map(attemptsOf))).flat();
        expect(stored.map((a) => a.state)).toEqual(["signed", "signed"]);
        if (when === "after-broadcast") {
          // Already sent: anvil mines each as it arrives.
          const mined = await Promise.all(stored.map((a) => minedTransaction(h.node, a.tx_hash)));
          expect(mined.map((m) => m.status)).toEqual(["success", "success"]);
        } else {
          expect(await receipts(stored.map((a) => a.tx_hash))).toEqual([null, null]);
        }
        const fresh = pipeline();
        await until(t.db, ids, "confirmed", tickAndMine(fresh));
        expect(await tokenBalance(h.node, h.usdc, to)).toBe(11_000_000n);
        expect(await ethBalance(to)).toBe(10n ** 15n);
        const attempts = (await Promise.all(ids.map(attemptsOf))).flat();
        // The stored attempts were broadcast (again), never signed anew.
        expect(attempts.map((a) => a.tx_hash)).toEqual(stored.map((a) => a.tx_hash));
        expect(await h.node.publicClient.getTransactionCount({ address: h.treasury })).toBe(nonceBefore + 2);
      }, 60_000);
    }
  });

  it("sends nothing twice while two signers contend for the lease and one hands over", async () => {
    const a = pipeline(h.sender(), 50);
    const b = pipeline(h.sender(), 50);
    const to = freshAddress();
    const before = await h.node.publicClient.getTransactionCount({ address: h.treasury });
    const sends = await Promise.all(
      Array.from({ length: 30 }, (_, i) => send({ asset: "USDC", to, amountRaw: BigInt(100 + i) })),
    );
    const ids = sends.map((s) => s.id);
    // a leads first; b contends from the start of the sends, and must take over when a stops.
    a.start();
    let stoppedOne = false;
    let held: Array<{ holder: string; epoch: string }> = [];
    await until(t.db, ids, "confirmed", async () => {
      await h.node.mine(1);
      await new Promise((resolve) => setTimeout(resolve, 50));
      const { rows } = await t.db.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM treasury_sends WHERE id = ANY($1::text[]) AND state <> 'queued'",
        [ids],
      );
      if (!stoppedOne && (rows[0]?.n ?? 0) > 0) {
        stoppedOne = true;
        b.start();
        for (let i = 0; i < 5; i++) await b.tick("BASE");
        const { rows: lease } = await t.db.query<{ holder: string; epoch: string }>(
          "SELECT holder, epoch::text FROM leases WHERE name = 'sender:BASE'",
        );
        held = lease;
        // The leader stops mid-way: the other takes over from what is stored.
        await a.stop();
      }
    });
    const { rows } = await t.db.query<{ nonce: number }>(
      `SELECT (a.guard->>'nonce')::int AS nonce FROM treasury_attempts a
         JOIN treasury_attempt_sends x ON x.attempt_id = a.id WHERE x.send_id = ANY($1::text[]) ORDER BY 1`,
      [ids],
    );
    expect(rows.map((r) => r.nonce)).toEqual(Array.from({ length: 30 }, (_, i) => before + i));
    expect(await tokenBalance(h.node, h.usdc, to)).toBe(30n * 100n + (29n * 30n) / 2n);
    expect(await h.node.publicClient.getTransactionCount({ address: h.treasury })).toBe(before + 30);
    // b stood by while a led, then took the lease over in a new epoch: at its next poll after a
    // handed it over, which may come after a confirmed everything on a loaded machine.
    expect(held).toHaveLength(1);
    const now = await eventually(async () => {
      const { rows: lease } = await t.db.query<{ holder: string; epoch: string }>(
        "SELECT holder, epoch::text FROM leases WHERE name = 'sender:BASE'",
      );
      return lease[0] && lease[0].holder !== held[0]?.holder ? lease[0] : undefined;
    }, 30_000);
    expect(BigInt(now.epoch)).toBeGreaterThan(BigInt(held[0]?.epoch ?? 0));
  }, 90_000);
});
