import { tronSendCheck } from "@mp/chain-tron";
import { resolveChainConfig, silentLogger } from "@mp/core";
import { createTreasuryKeys } from "@mp/custody";
import { createTestDatabase, type TestDatabase } from "@mp/db/testing";
import { startTronTestNode, TronKey, type TronTestNode } from "@mp/test-nodes/tron";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createTronSender } from "../../../chains/tron/src/send/tron-sender.ts";
import { KEY_SCHEMES } from "../../../services/payments/src/chain-families.ts";
import type { ChainSender } from "../src/chain-sender.ts";
import type { SendPipeline } from "../src/send-pipeline.ts";
import { findSend, requestSend, type SendRequest } from "../src/send-requests.ts";
import { TEST_TREASURY_MNEMONIC, until } from "./support/evm-treasury.ts";
import { testPipelines } from "./support/test-pipelines.ts";

const TRX = 1_000_000n;
const ENERGY_PRICE = 100n;

let t: TestDatabase;
let node: TronTestNode;
let treasury: string;
const pipelines = testPipelines("TRON", () => t.db);
const keys = createTreasuryKeys(TEST_TREASURY_MNEMONIC, { bitcoinNetwork: "regtest", schemes: KEY_SCHEMES });

const tronSender = (): ChainSender =>
  createTronSender({
    config: resolveChainConfig("TRON", { rpcUrl: node.url, tokens: [...node.tokens], network: "regtest" }),
    keys,
    db: t.db,
    logger: silentLogger(),
  });

beforeAll(async () => {
  [t, node] = await Promise.all([createTestDatabase(), startTronTestNode({ seed: "tron-send-pipeline-test" })]);
  treasury = tronSender().address;
  node.transfer(treasury, 500n * TRX);
  node.transferToken(treasury, 100_000_000n);
  node.mine();
}, 60_000);

afterEach(async () => {
  await pipelines.stopAll();
  node.hold(false);
  node.setEnergyPrice(ENERGY_PRICE);
});

afterAll(async () => {
  await node?.stop();
  await t?.drop();
});

const pipeline = (sender: ChainSender = tronSender()): SendPipeline => pipelines.start(sender);

let seq = 0;
const recipient = () => TronKey.fromLabel(`tron-pipeline-recipient:${++seq}`).address;
const send = async (request: Pick<SendRequest, "asset" | "to" | "amountRaw">) =>
  (
    await requestSend(
      t.db,
      { chain: "TRON", purpose: "operator", idempotencyKey: `tron-${++seq}`, ...request },
      tronSendCheck,
    )
  ).send;

const tickAndMine = (p: SendPipeline) => async () => {
  await p.tick("TRON");
  node.mine();
};

const attemptsOf = async (sendId: string) =>
  (
    await t.db.query<{ tx_hash: string; state: string; error: string | null; fee: Record<string, string> }>(
      `SELECT a.tx_hash, a.state, a.error, a.fee FROM treasury_attempts a
         JOIN treasury_attempt_sends x ON x.attempt_id = a.id WHERE x.send_id = $1 ORDER BY a.created_at`,
      [sendId],
    )
  ).rows;

describe("Tron sends through the send pipeline", () => {
  it("confirms a TRX and a TRC-20 send, one attempt each, exactly the amounts", async () => {
    const p = pipeline();
    const [trxTo, usdtTo] = [recipient(), recipient()];
    const trx = await send({ asset: "TRX", to: trxTo, amountRaw: 12n * TRX });
    const usdt = await send({ asset: "USDT", to: usdtTo, amountRaw: 4_200_000n });
    await until(t.db, [trx.id, usdt.id], "confirmed", tickAndMine(p), 30_000);

    expect(node.balance(trxTo)).toBe(12n * TRX);
    expect(node.tokenBalance(usdtTo)).toBe(4_200_000n);
    for (const s of [trx, usdt]) {
      const attempts = await attemptsOf(s.id);
      expect(attempts.map((a) => a.state)).toEqual(["mined"]);
      expect((await findSend(t.db, s.id))?.txHash).toBe(attempts[0]?.tx_hash);
      expect(node.transaction(attempts[0]?.tx_hash ?? "")).toMatchObject({ failed: false });
    }
    expect(Number((await attemptsOf(usdt.id))[0]?.fee.feeLimit)).toBeGreaterThan(0);
  });

  it("fails a TRC-20 send that runs out of energy, with the reason, and sends nothing more", async () => {
    const p = pipeline();
    const to = recipient();
    const s = await send({ asset: "USDT", to, amountRaw: 1_000_000n });
    await p.tick("TRON"); // signed and broadcast with fee_limit from today's energy price
    node.setEnergyPrice(ENERGY_PRICE * 3n);
    await until(t.db, [s.id], "failed", tickAndMine(p), 30_000);

    const failed = await findSend(t.db, s.id);
    expect(failed?.reason).toMatch(/^OUT_OF_ENERGY: .*fee_limit \d+ sun/);
    const attempts = await attemptsOf(s.id);
    expect(attempts).toHaveLength(1);
    expect(attempts[0]).toMatchObject({ state: "failed", error: failed?.reason });
    expect(node.transaction(attempts[0]?.tx_hash ?? "")).toMatchObject({ failed: true });
    for (let i = 0; i < 3; i++) await tickAndMine(p)();
    expect(await attemptsOf(s.id)).toHaveLength(1);
    expect(node.tokenBalance(to)).toBe(0n);
  });

  it("re-signs, exactly once, a transaction signed but never broadcast (crash) once it expired", async () => {
    const to = recipient();
    const s = await send({ asset: "TRX", to, amountRaw: 3n * TRX });
    // A signer that stores the attempt and dies before the broadcast reaches the node.
    const real = tronSender();
    const crashing: ChainSender = {
      ...real,
      broadcast: () => Promise.reject(new Error("killed before broadcasting")),
    };
    const dying = pipeline(crashing);
    await dying.tick("TRON");
    await dying.stop();
    expect((await attemptsOf(s.id)).map((a) => a.state)).toEqual(["signed"]);
    node.mine(20); // past its expiration (reference block + 60 s of block time)

    const p = pipeline(real);
    await until(t.db, [s.id], "confirmed", tickAndMine(p), 30_000);
    const attempts = await attemptsOf(s.id);
    expect(attempts.map((a) => a.state)).toEqual(["expired", "mined"]);
    expect(node.transaction(attempts[0]?.tx_hash ?? "")).toBeUndefined();
    expect(node.balance(to)).toBe(3n * TRX);
  });

  it("lands once when the signer dies after broadcasting, before recording it: the rebroadcast is a duplicate", async () => {
    const to = recipient();
    const s = await send({ asset: "USDT", to, amountRaw: 31n });
    const real = tronSender();
    const dying = pipeline({
      ...real,
      broadcast: async (attempt) => {
        await real.broadcast(attempt);
        throw new Error("killed before recording the broadcast");
      },
    });
    await dying.tick("TRON");
    await dying.stop();
    expect((await attemptsOf(s.id)).map((a) => a.state)).toEqual(["signed"]);
    node.mine(); // it landed meanwhile

    await until(t.db, [s.id], "confirmed", tickAndMine(pipeline(real)), 30_000);
    expect((await attemptsOf(s.id)).map((a) => a.state)).toEqual(["mined"]);
    expect(node.tokenBalance(to)).toBe(31n);
  });

  it("re-signs, exactly once, a broadcast transaction the network held back until it expired", async () => {
    const p = pipeline();
    const to = recipient();
    const s = await send({ asset: "USDT", to, amountRaw: 777n });
    node.hold(true);
    await p.tick("TRON");
    node.mine(20);
    await p.tick("TRON"); // proves it expired, re-queues and signs again
    node.hold(false);
    await until(t.db, [s.id], "confirmed", tickAndMine(p), 30_000);
    const attempts = await attemptsOf(s.id);
    expect(attempts.map((a) => a.state)).toEqual(["expired", "mined"]);
    expect(node.tokenBalance(to)).toBe(777n);
  });

  it("watches a confirmed send again when a reorg drops its block, and lands the same transaction again", async () => {
    const p = pipeline();
    const to = recipient();
    const s = await send({ asset: "TRX", to, amountRaw: 9n * TRX });
    await until(t.db, [s.id], "confirmed", tickAndMine(p), 30_000);
    const [landed] = await attemptsOf(s.id);
    const height = node.transaction(landed?.tx_hash ?? "")?.height ?? 0;
    node.reorg(node.head() - height + 1, { drop: [landed?.tx_hash ?? ""] });
    expect(node.balance(to)).toBe(0n);

    await p.tick("TRON");
    expect(await findSend(t.db, s.id)).toMatchObject({ state: "broadcast" });
    await until(t.db, [s.id], "confirmed", tickAndMine(p), 30_000);
    const attempts = await attemptsOf(s.id);
    expect(attempts.map((a) => [a.tx_hash, a.state])).toEqual([[landed?.tx_hash, "mined"]]);
    expect(node.balance(to)).toBe(9n * TRX);
  });

  it("waits for treasury funds, then sends once topped up", async () => {
    const p = pipeline();
    const to = recipient();
    const s = await send({ asset: "USDT", to, amountRaw: 200_000_000n });
    await p.tick("TRON");
    expect(await findSend(t.db, s.id)).toMatchObject({
      state: "waiting_funds",
      reason: expect.stringContaining("USDT"),
    });
    node.transferToken(treasury, 200_000_000n);
    node.mine();
    await until(t.db, [s.id], "confirmed", tickAndMine(p), 30_000);
    expect(node.tokenBalance(to)).toBe(200_000_000n);
    expect(await attemptsOf(s.id)).toHaveLength(1);
  });
});
