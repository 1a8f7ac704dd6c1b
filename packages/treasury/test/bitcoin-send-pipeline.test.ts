import { randomBytes } from "node:crypto";
import { bitcoinSendCheck } from "@mp/chain-bitcoin";
import { tryAcquireLease } from "@mp/db";
import { networks, payments } from "bitcoinjs-lib";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import type { ChainSender } from "../src/chain-sender.ts";
import type { SendPipeline } from "../src/send-pipeline.ts";
import { findSend, requestSend } from "../src/send-requests.ts";
import { freshRecipients, nodeRpc, paidOnChain, startBitcoinTreasury } from "./support/bitcoin-treasury.ts";
import { until } from "./support/evm-treasury.ts";
import { testPipelines } from "./support/test-pipelines.ts";
import { useTreasuryHarness } from "./support/use-treasury.ts";

describe.each([{ txindex: false }, { txindex: true }])("Bitcoin send pipeline (txindex: $txindex)", ({ txindex }) => {
  // Core's default is no -txindex: a mined transaction is found by its block. Both modes pay once.
  const { t, h } = useTreasuryHarness((db) => startBitcoinTreasury(db, { txindex }));
  const pipelines = testPipelines("BITCOIN", () => t.db);

  beforeAll(async () => {
    await h.fund([20_000_000n, 20_000_000n, 20_000_000n]);
  }, 60_000);

  afterEach(async () => {
    h.node.setMiningPolicy({ hold: false });
    await pipelines.stopAll();
  });

  const pipeline = (): SendPipeline => pipelines.start(h.sender());

  let keys = 0;
  const send = async (to: string, amountRaw: bigint) =>
    (
      await requestSend(
        t.db,
        {
          chain: "BITCOIN",
          asset: "BTC",
          to,
          amountRaw,
          purpose: "operator",
          idempotencyKey: `btc-${keys++}`,
        },
        bitcoinSendCheck,
      )
    ).send;

  /** One pass, then a block, the indexer following (it records the change outputs too). */
  const tickAndMine = (p: SendPipeline) => async () => {
    await p.tick("BITCOIN");
    await h.mine(1);
  };

  interface AttemptRow {
    id: string;
    tx_hash: string;
    state: string;
    replaces: string | null;
    output_index: number | null;
    fee_rate: string;
  }

  const attemptsOf = async (sendId: string): Promise<AttemptRow[]> => {
    const { rows } = await t.db.query<AttemptRow>(
      `SELECT a.id, a.tx_hash, a.state, a.replaces, x.output_index, a.fee->>'feeRate' AS fee_rate
         FROM treasury_attempts a JOIN treasury_attempt_sends x ON x.attempt_id = a.id
        WHERE x.send_id = $1 ORDER BY a.created_at`,
      [sendId],
    );
    return rows;
  };

  describe("the send pipeline on the Bitcoin test node", () => {
    it("a mined send is found by its block, never taken for vanished: it pays exactly once", async () => {
      const p = pipeline();
      const [to] = freshRecipients(1) as [string];
      const s = await send(to, 1_000_000n);
      await until(t.db, [s.id], "broadcast", () => p.tick("BITCOIN"));
      await h.mine(1);
      // Without -txindex the node answers -5 for the mined transaction when asked by its txid alone.
      const [first] = await attemptsOf(s.id);
      const bare = await nodeRpc(h.node, "getrawtransaction", [first?.tx_hash, true]);
      expect(bare.error?.code).toBe(txindex ? undefined : -5);
      // Passes until the pipeline has judged it (a pass may lose its lease or a look-up on a loaded
      // machine): found in its block (mined), not taken for vanished (expired, its send re-queued).
      const judged = Date.now() + 60_000;
      let states: string[] = ["broadcast"];
      while (states.join() === "broadcast" && Date.now() < judged) {
        await p.tick("BITCOIN");
        states = (await attemptsOf(s.id)).map((a) => a.state);
      }
      expect(states).toEqual(["mined"]);
      // A coin larger than any other reaches the treasury: a send re-queued by mistake would take it.
      await h.fund([30_000_000n]);
      await until(t.db, [s.id], "confirmed", tickAndMine(p));
      for (let i = 0; i < 3; i++) await tickAndMine(p)();
      const attempts = await attemptsOf(s.id);
      expect(attempts.map((a) => a.state)).toEqual(["mined"]);
      let paid = 0n;
      for (const a of attempts) paid += await paidOnChain(h.node, a.tx_hash, to);
      expect(paid).toBe(1_000_000n);
      expect((await findSend(t.db, s.id))?.state).toBe("confirmed");
    });

    it("a deposed signer changes no treasury coin: what status() finds is written under the lease", async () => {
      const [to] = freshRecipients(1) as [string];
      const s = await send(to, 1_500_000n);
      const first = pipeline();
      await until(t.db, [s.id], "broadcast", () => first.tick("BITCOIN"));
      await pipelines.stopAll();
      await h.mine(1);
      const coins = async () =>
        (
          await t.db.query(
            `SELECT txid, vout, block_height::text, spent_by, reserved_by FROM treasury_utxos
              WHERE chain = 'BITCOIN' ORDER BY txid, vout`,
          )
        ).rows;
      const before = await coins();
      // Another signer takes the chain over while this one asks the node about the mined send.
      const otherId = "other-host:4242:beef";
      const other = await t.db.pool.connect();
      try {
        await other.query("SELECT pg_try_advisory_lock(7245022, hashtext($1))", [otherId]);
        const sender = h.sender();
        let asked = false;
        const deposing: ChainSender = {
          ...sender,
          async status(attempt) {
            asked = true;
            await t.db.query("UPDATE leases SET expires_at = clock_timestamp() WHERE name = 'sender:BITCOIN'");
            expect(
              await tryAcquireLease(t.db, { name: "sender:BITCOIN", holder: otherId, seconds: 60 }),
            ).not.toBeNull();
            return sender.status(attempt);
          },
        };
        const deposed = pipelines.start(deposing);
        // Until its pass asks the node (a pass that did not get the lease on a loaded machine asks nothing).
        const deadline = Date.now() + 60_000;
        while (!asked && Date.now() < deadline) await deposed.tick("BITCOIN");
        expect(asked).toBe(true);
        expect(await coins()).toEqual(before);
        expect((await attemptsOf(s.id)).map((a) => a.state)).toEqual(["broadcast"]);
        await pipelines.stopAll();
      } finally {
        await t.db.query("UPDATE leases SET expires_at = clock_timestamp() WHERE name = 'sender:BITCOIN'");
        await other.query("SELECT pg_advisory_unlock(7245022, hashtext($1))", [otherId]);
        other.release(true);
      }
      // The chain's next leader records it: the coins it spent, once.
      await until(t.db, [s.id], "confirmed", tickAndMine(pipeline()));
      const [attempt] = await attemptsOf(s.id);
      const { rows } = await t.db.query<{ n: string }>(
        "SELECT count(*)::text AS n FROM treasury_utxos WHERE chain = 'BITCOIN' AND spent_by = $1",
        [attempt?.tx_hash],
      );
      expect(Number(rows[0]?.n)).toBeGreaterThan(0);
    });

    it("batches queued sends into one transaction, one output each, and confirms them", async () => {
      const p = pipeline();
      const recipients = freshRecipients(3);
      const sends = await Promise.all(recipients.map((to, i) => send(to, 1_000_000n + BigInt(i))));
      await p.tick("BITCOIN");
      const attempts = await Promise.all(sends.map((s) => attemptsOf(s.id)));
      const hashes = new Set(attempts.map((a) => a[0]?.tx_hash));
      expect(hashes.size).toBe(1);
      expect(attempts.map((a) => a[0]?.output_index).sort()).toEqual([0, 1, 2]);
      expect(h.node.mempool()).toEqual([...hashes]);
      await until(
        t.db,
        sends.map((s) => s.id),
        "confirmed",
        tickAndMine(p),
      );
      const [txHash] = [...hashes] as [string];
      for (const [i, s] of sends.entries()) {
        expect(await paidOnChain(h.node, txHash, recipients[i] as string)).toBe(1_000_000n + BigInt(i));
        expect((await findSend(t.db, s.id))?.txHash).toBe(txHash);
      }
    });

    it("a batched send the sender refuses (another network's address) fails alone; its batch siblings go out", async () => {
      const p = pipeline();
      const recipients = freshRecipients(2);
      const [first, second] = await Promise.all(recipients.map((to) => send(to, 700_000n)));
      // A mainnet address: a Bitcoin address (requestSend takes it), never one this regtest chain pays.
      const wrong = await send("bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4", 700_000n);
      await until(t.db, [first?.id ?? "", second?.id ?? ""], "confirmed", tickAndMine(p));
      const refused = await findSend(t.db, wrong.id);
      expect(refused?.state).toBe("failed");
      expect(refused?.reason).toMatch(/not a regtest Bitcoin address/);
      expect(await attemptsOf(wrong.id)).toEqual([]);
      const [a, b] = await Promise.all([attemptsOf(first?.id ?? ""), attemptsOf(second?.id ?? "")]);
      // The two good ones still share one transaction.
      expect(a?.[0]?.tx_hash).toBe(b?.[0]?.tx_hash);
      expect(await paidOnChain(h.node, a?.[0]?.tx_hash as string, recipients[0] as string)).toBe(700_000n);
    });

    it("a batch the node refuses (one output is dust to it) is signed again one send each: only that send fails", async () => {
      const p = pipeline();
      const recipients = freshRecipients(2);
      const good = await Promise.all(recipients.map((to) => send(to, 800_000n)));
      // 300 sat passes the P2WPKH dust rule the sender checks, but a P2PKH output needs 546: the node
      // refuses any transaction that carries it.
      const legacy = payments.p2pkh({ hash: randomBytes(20), network: networks.regtest });
      const dust = await send(legacy.address as string, 300n);
      await until(
        t.db,
        good.map((s) => s.id),
        "confirmed",
        tickAndMine(p),
      );
      const refused = await findSend(t.db, dust.id);
      expect(refused?.state).toBe("failed");
      expect(refused?.reason).toMatch(/dust/);
      // The refused batch carried all three; then each went alone: the dust one refused, the others landed.
      const batch = await attemptsOf(dust.id);
      expect(batch.map((a) => a.state)).toEqual(["failed", "failed"]);
      for (const s of good) {
        const attempts = await attemptsOf(s.id);
        expect(attempts[0]?.tx_hash).toBe(batch[0]?.tx_hash);
        expect(attempts.map((a) => a.state)).toEqual(["failed", "mined"]);
      }
    });

    it("replaces a stuck send by RBF (same inputs, higher fee rate) and exactly one attempt lands", async () => {
      const p = pipeline();
      const [to] = freshRecipients(1) as [string];
      const s = await send(to, 2_000_000n);
      h.node.setMiningPolicy({ hold: true });
      await p.tick("BITCOIN");
      const [first] = await attemptsOf(s.id);
      expect(first?.state).toBe("broadcast");
      // Blocks pass without it (the miners ignore it): stuck after stuckAfterBlocks.
      for (let i = 0; i < 3; i++) await tickAndMine(p)();
      await p.tick("BITCOIN");
      const attempts = await attemptsOf(s.id);
      expect(attempts.length).toBeGreaterThanOrEqual(2);
      const replacement = attempts.find((a) => a.replaces === first?.id);
      expect(replacement).toBeDefined();
      expect(BigInt(replacement?.fee_rate ?? "0")).toBeGreaterThan(BigInt(first?.fee_rate ?? "0"));
      // The node swapped the original out for the replacement (BIP-125).
      expect(h.node.mempool()).not.toContain(first?.tx_hash);
      h.node.setMiningPolicy({ hold: false });
      await until(t.db, [s.id], "confirmed", tickAndMine(p));
      const final = await attemptsOf(s.id);
      const mined = final.filter((a) => a.state === "mined");
      expect(mined).toHaveLength(1);
      let paid = 0n;
      for (const a of final) paid += await paidOnChain(h.node, a.tx_hash, to);
      expect(paid).toBe(2_000_000n);
      expect((await findSend(t.db, s.id))?.txHash).toBe(mined[0]?.tx_hash);
    });

    it("a send the treasury cannot cover waits, and goes out after a top-up", async () => {
      const p = pipeline();
      const [to] = freshRecipients(1) as [string];
      const s = await send(to, 90_000_000n);
      await p.tick("BITCOIN");
      const waiting = await findSend(t.db, s.id);
      expect(waiting?.state).toBe("waiting_funds");
      expect(waiting?.reason).toMatch(/sat/);
      await h.fund([100_000_000n]);
      await until(t.db, [s.id], "confirmed", tickAndMine(p));
      const [attempt] = await attemptsOf(s.id);
      expect(await paidOnChain(h.node, attempt?.tx_hash as string, to)).toBe(90_000_000n);
    });

    it("a send the treasury can never cover does not hold up the sends queued after it (one batch)", async () => {
      const p = pipeline();
      const [far, near] = freshRecipients(2) as [string, string];
      // Found by the money fuzz (issue 27): both went into one batch, short as a whole, and waited for good.
      const unaffordable = await send(far, 100_000_000_000n);
      const affordable = await send(near, 1_000_000n);
      await until(t.db, [affordable.id], "confirmed", tickAndMine(p));
      expect((await findSend(t.db, unaffordable.id))?.state).toBe("waiting_funds");
      const [attempt] = await attemptsOf(affordable.id);
      expect(await paidOnChain(h.node, attempt?.tx_hash as string, near)).toBe(1_000_000n);
      expect(await attemptsOf(unaffordable.id)).toEqual([]);
      // Out of the way of the later tests' batches (as an operator would fail it).
      await t.db.query("UPDATE treasury_sends SET state = 'failed', reason = 'withdrawn' WHERE id = $1", [
        unaffordable.id,
      ]);
    }, 120_000);

    it("a confirmed send whose block leaves the chain is watched again, not re-sent, and confirms once more", async () => {
      const p = pipeline();
      const [to] = freshRecipients(1) as [string];
      const s = await send(to, 3_000_000n);
      await until(t.db, [s.id], "confirmed", tickAndMine(p));
      const [attempt] = await attemptsOf(s.id);
      const txHash = attempt?.tx_hash as string;
      const block = h.node.blockOf(txHash);
      const confirmations = (
        (await nodeRpc(h.node, "getrawtransaction", [txHash, true, block])).result as { confirmations: number }
      ).confirmations;
      // Its block and those above it are replaced; the transaction goes back to the mempool.
      h.node.reorg(confirmations, { toMempool: [txHash], blocks: confirmations + 1 });
      await h.catchUp();
      await p.tick("BITCOIN");
      expect((await findSend(t.db, s.id))?.state).not.toBe("confirmed");
      await until(t.db, [s.id], "confirmed", tickAndMine(p));
      const attempts = await attemptsOf(s.id);
      expect(attempts.map((a) => a.tx_hash)).toEqual([txHash]);
      expect(await paidOnChain(h.node, txHash, to)).toBe(3_000_000n);
    });

    it("a send whose coin vanished in a reorg expires, is signed again with other coins, and lands once", async () => {
      const p = pipeline();
      // The largest coin, so it is the one selected; then the transaction that created it is dropped by a reorg.
      const funding = h.node.send(h.treasury, 500_000_000n);
      await h.mine(1);
      const [to] = freshRecipients(1) as [string];
      const s = await send(to, 4_000_000n);
      h.node.setMiningPolicy({ hold: true });
      await p.tick("BITCOIN");
      const [first] = await attemptsOf(s.id);
      const { rows } = await t.db.query<{ guard: { inputs: { txid: string }[] } }>(
        "SELECT guard FROM treasury_attempts WHERE id = $1",
        [first?.id],
      );
      expect(rows[0]?.guard.inputs.map((i) => i.txid)).toContain(funding.txid);
      h.node.reorg(1, { drop: [funding.txid] });
      expect(h.node.mempool()).not.toContain(first?.tx_hash);
      await h.catchUp();
      h.node.setMiningPolicy({ hold: false });
      await until(t.db, [s.id], "confirmed", tickAndMine(p));
      const attempts = await attemptsOf(s.id);
      expect(attempts.map((a) => a.state)).toEqual(["expired", "mined"]);
      expect(attempts[1]?.replaces).toBeNull();
      let paid = 0n;
      for (const a of attempts) paid += await paidOnChain(h.node, a.tx_hash, to);
      expect(paid).toBe(4_000_000n);
    });
  });
});
