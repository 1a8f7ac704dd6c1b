import { solanaSendCheck } from "@mp/chain-solana";
import { Keypair, VersionedTransaction } from "@solana/web3.js";
import { afterEach, describe, expect, it } from "vitest";
import type { ChainSender } from "../src/chain-sender.ts";
import type { SendPipeline } from "../src/send-pipeline.ts";
import { findSend, requestSend, type SendRequest } from "../src/send-requests.ts";
import { until } from "./support/evm-treasury.ts";
import { LAMPORTS_PER_SOL, startSolanaTreasury } from "./support/solana-treasury.ts";
import { testPipelines } from "./support/test-pipelines.ts";
import { useTreasuryHarness } from "./support/use-treasury.ts";

const { t, h } = useTreasuryHarness(startSolanaTreasury);
const pipelines = testPipelines("SOLANA", () => t.db);

afterEach(async () => {
  h.node.dropIncoming(false);
  await pipelines.stopAll();
});

/**
 * A signer that stores the send's attempt and dies right before broadcasting it, or right after
 * the node took it but before the broadcast was recorded: either way the attempt stays "signed".
 */
async function signThenCrash(sendId: string, when: "before broadcasting" | "before recording the broadcast") {
  const real = h.sender();
  const dying = pipeline({
    ...real,
    broadcast: async (attempt) => {
      if (when === "before recording the broadcast") await real.broadcast(attempt);
      throw new Error(`killed ${when}`);
    },
  });
  await tickUntilSigned(dying, sendId);
  await pipelines.stopAll();
}

/** Ticks until the send has an attempt stored (a new pipeline takes the lease within a poll or two). */
async function tickUntilSigned(p: SendPipeline, sendId: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while ((await attemptsOf(sendId)).length === 0) {
    if (Date.now() > deadline) throw new Error(`no attempt signed for ${sendId}`);
    await p.tick("SOLANA");
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const pipeline = (sender: ChainSender = h.sender()): SendPipeline => pipelines.start(sender);

let keys = 0;
const send = async (overrides: Pick<SendRequest, "asset" | "to" | "amountRaw">) =>
  (
    await requestSend(
      t.db,
      { chain: "SOLANA", purpose: "operator", idempotencyKey: `sol-${keys++}`, ...overrides },
      solanaSendCheck,
    )
  ).send;

/** One pass, then a slot (the node produces blocks only when told). */
const tickAndMine = (p: SendPipeline) => async () => {
  await p.tick("SOLANA");
  h.node.mine();
};

const wallet = () => Keypair.generate().publicKey.toBase58();

interface AttemptRow {
  id: string;
  tx_hash: string;
  state: string;
  replaces: string | null;
  last_valid: number;
}

const attemptsOf = async (sendId: string): Promise<AttemptRow[]> => {
  const { rows } = await t.db.query<AttemptRow>(
    `SELECT a.id, a.tx_hash, a.state, a.replaces, (a.guard->>'lastValidBlockHeight')::int AS last_valid
       FROM treasury_attempts a JOIN treasury_attempt_sends x ON x.attempt_id = a.id
      WHERE x.send_id = $1 ORDER BY a.created_at, a.id`,
    [sendId],
  );
  return rows;
};

const instructionCount = (signature: string): number => {
  const landed = h.node.transaction(signature);
  if (!landed) throw new Error(`${signature} did not land`);
  return VersionedTransaction.deserialize(landed.wire).message.compiledInstructions.length;
};

/** The node's block height at `confirmed` (the tip). */
async function blockHeight(): Promise<number> {
  const response = await fetch(h.node.url, {
    method: "POST",
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "getBlockHeight", params: [{ commitment: "confirmed" }] }),
  });
  return ((await response.json()) as { result: number }).result;
}

describe("the send pipeline on the Solana test node", () => {
  it("sends SOL and a token, each confirmed once; the recipient's token account is created once", async () => {
    const p = pipeline();
    const to = wallet();
    const sol = await send({ asset: "SOL", to, amountRaw: 3n * LAMPORTS_PER_SOL });
    const usdc = await send({ asset: "USDC", to, amountRaw: 7_000_000n });
    await until(t.db, [sol.id, usdc.id], "confirmed", tickAndMine(p));
    const more = await send({ asset: "USDC", to, amountRaw: 1_000_000n });
    await until(t.db, [more.id], "confirmed", tickAndMine(p));

    expect(h.node.balance(to)).toBe(3n * LAMPORTS_PER_SOL);
    expect(h.node.tokenBalance(to, "USDC")).toBe(8_000_000n);
    const [solAttempt] = await attemptsOf(sol.id);
    const [firstToken] = await attemptsOf(usdc.id);
    const [secondToken] = await attemptsOf(more.id);
    for (const id of [sol.id, usdc.id, more.id]) expect((await attemptsOf(id)).map((a) => a.state)).toEqual(["mined"]);
    // CreateIdempotent + transferChecked the first time, transferChecked alone once the account exists.
    expect(instructionCount(firstToken?.tx_hash ?? "")).toBe(2);
    expect(instructionCount(secondToken?.tx_hash ?? "")).toBe(1);
    expect(h.node.balance(h.node.associatedTokenAddress(to, "USDC"))).toBe(2_039_280n);
    expect((await findSend(t.db, sol.id))?.txHash).toBe(solAttempt?.tx_hash);
  });

  it("rebroadcasts the same signed transaction the node lost, without signing again", async () => {
    const p = pipeline();
    const to = wallet();
    h.node.dropIncoming(true);
    const sent = await send({ asset: "SOL", to, amountRaw: LAMPORTS_PER_SOL });
    await p.tick("SOLANA");
    h.node.mine(5);
    await p.tick("SOLANA");
    h.node.mine(5);
    expect((await findSend(t.db, sent.id))?.state).toBe("broadcast");
    expect(h.node.balance(to)).toBe(0n);
    h.node.dropIncoming(false);
    await until(t.db, [sent.id], "confirmed", tickAndMine(p));
    const attempts = await attemptsOf(sent.id);
    expect(attempts.map((a) => a.state)).toEqual(["mined"]);
    expect(h.node.balance(to)).toBe(LAMPORTS_PER_SOL);
  });

  it("signs again exactly once when the blockhash expires while the node drops transactions, and it lands once", async () => {
    const p = pipeline();
    const to = wallet();
    h.node.dropIncoming(true);
    const sent = await send({ asset: "USDC", to, amountRaw: 4_200_000n });
    await p.tick("SOLANA");
    const [first] = await attemptsOf(sent.id);
    if (!first) throw new Error("no attempt signed");
    // Past its last valid height at the tip, rebroadcast meanwhile: still not proven expired.
    h.node.mine(first.last_valid - (await blockHeight()) + 1);
    await p.tick("SOLANA");
    expect((await attemptsOf(sent.id)).map((a) => a.state)).toEqual(["broadcast"]);
    // Finalized past it: expired, and only now signed again (the node delivers again from here).
    h.node.mine(32);
    h.node.dropIncoming(false);
    await until(t.db, [sent.id], "confirmed", tickAndMine(p));

    const attempts = await attemptsOf(sent.id);
    expect(attempts.map((a) => a.state)).toEqual(["expired", "mined"]);
    expect(attempts[1]?.tx_hash).not.toBe(first.tx_hash);
    expect(attempts[1]?.last_valid).toBeGreaterThan(first.last_valid);
    expect(h.node.transaction(first.tx_hash)).toBeUndefined();
    expect(h.node.tokenBalance(to, "USDC")).toBe(4_200_000n);
    // More passes and slots change nothing: no third signature, nothing lands twice.
    for (let i = 0; i < 3; i++) await tickAndMine(p)();
    expect(await attemptsOf(sent.id)).toHaveLength(2);
    expect(h.node.tokenBalance(to, "USDC")).toBe(4_200_000n);
  });

  it("waits for funds the treasury lacks, and sends once it is topped up", async () => {
    const p = pipeline();
    const to = wallet();
    const held = h.node.balance(h.treasury);
    const big = await send({ asset: "SOL", to, amountRaw: held + LAMPORTS_PER_SOL });
    await p.tick("SOLANA");
    expect(await findSend(t.db, big.id)).toMatchObject({ state: "waiting_funds" });
    expect(await attemptsOf(big.id)).toHaveLength(0);
    h.node.transfer(h.treasury, 10n * LAMPORTS_PER_SOL);
    h.node.mine();
    await until(t.db, [big.id], "confirmed", tickAndMine(p));
    expect(h.node.balance(to)).toBe(held + LAMPORTS_PER_SOL);
  });

  it("after a crash before the broadcast, or after it but before it was recorded, sends the stored bytes: one landing", async () => {
    const to = wallet();
    const crashBefore = await send({ asset: "SOL", to, amountRaw: LAMPORTS_PER_SOL });
    await signThenCrash(crashBefore.id, "before broadcasting");
    h.node.mine();
    expect(h.node.balance(to)).toBe(0n);
    expect((await attemptsOf(crashBefore.id)).map((a) => a.state)).toEqual(["signed"]);
    await until(t.db, [crashBefore.id], "confirmed", tickAndMine(pipeline()));
    await pipelines.stopAll();

    const crashAfter = await send({ asset: "USDC", to, amountRaw: 2_000_000n });
    await signThenCrash(crashAfter.id, "before recording the broadcast");
    h.node.mine();
    expect(h.node.tokenBalance(to, "USDC")).toBe(2_000_000n); // it did reach the node
    expect((await attemptsOf(crashAfter.id)).map((a) => a.state)).toEqual(["signed"]);
    await until(t.db, [crashAfter.id], "confirmed", tickAndMine(pipeline()));

    for (const id of [crashBefore.id, crashAfter.id]) {
      expect((await attemptsOf(id)).map((a) => a.state)).toEqual(["mined"]);
    }
    expect(h.node.balance(to)).toBe(LAMPORTS_PER_SOL);
    expect(h.node.tokenBalance(to, "USDC")).toBe(2_000_000n);
  });

  it("a stored attempt whose blockhash expired while the signer was down is proven expired and signed again once", async () => {
    const to = wallet();
    const sent = await send({ asset: "SOL", to, amountRaw: LAMPORTS_PER_SOL });
    await signThenCrash(sent.id, "before broadcasting");
    const [stored] = await attemptsOf(sent.id);
    if (!stored) throw new Error("no attempt stored");
    h.node.mine(stored.last_valid - (await blockHeight()) + 33);

    const restarted = pipeline();
    await until(t.db, [sent.id], "confirmed", tickAndMine(restarted));
    const attempts = await attemptsOf(sent.id);
    expect(attempts.map((a) => a.state)).toEqual(["expired", "mined"]);
    expect(h.node.transaction(stored.tx_hash)).toBeUndefined();
    expect(h.node.balance(to)).toBe(LAMPORTS_PER_SOL);
  });

  it("watches a confirmed send again when a reorg drops its block, and lands the same transaction once", async () => {
    const p = pipeline();
    const to = wallet();
    const sent = await send({ asset: "SOL", to, amountRaw: LAMPORTS_PER_SOL });
    await until(t.db, [sent.id], "confirmed", tickAndMine(p));
    const [attempt] = await attemptsOf(sent.id);
    const landed = h.node.transaction(attempt?.tx_hash ?? "");
    if (!attempt || !landed) throw new Error("the send did not land");
    h.node.reorg(h.node.head() - landed.slot + 1, { drop: [attempt.tx_hash] });
    expect(h.node.balance(to)).toBe(0n);
    await p.tick("SOLANA");
    expect((await findSend(t.db, sent.id))?.state).toBe("broadcast");
    await until(t.db, [sent.id], "confirmed", tickAndMine(p));
    // Not signed again: the same signature landed on the new fork.
    expect((await attemptsOf(sent.id)).map((a) => [a.tx_hash, a.state])).toEqual([[attempt.tx_hash, "mined"]]);
    expect(h.node.transaction(attempt.tx_hash)?.slot).toBeGreaterThan(landed.slot);
    expect(h.node.balance(to)).toBe(LAMPORTS_PER_SOL);
  });
});
