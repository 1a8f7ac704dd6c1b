import { resolveChainConfig, silentLogger } from "@mp/core";
import { createTreasuryKeys } from "@mp/custody";
import { createTestDatabase, type TestDatabase } from "@mp/db/testing";
import { startTronTestNode, TronKey, type TronTestNode } from "@mp/test-nodes/tron";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createTronSender } from "../../../chains/tron/src/send/tron-sender.ts";
import { KEY_SCHEMES } from "../../../services/payments/src/chain-families.ts";
import type { ChainSender, SendOrder, SignedAttempt, StoredAttempt } from "../src/index.ts";
import { InsufficientTreasuryFundsError } from "../src/index.ts";
import { storedAttempt } from "./support/stored-attempt.ts";

/** Hardhat/anvil's development mnemonic: public, never holds funds. */
const MNEMONIC = "test test test test test test test test test test test junk";
const TRX = 1_000_000n;
/** What the test node's TRC-20 transfer takes, and its energy price (getEnergyFee) by default. */
const TRANSFER_ENERGY = 14_650n;
const ENERGY_PRICE = 100n;

let node: TronTestNode;
let t: TestDatabase;
let sender: ChainSender;
let treasury: string;
let orderSeq = 0;

const keys = createTreasuryKeys(MNEMONIC, { bitcoinNetwork: "regtest", schemes: KEY_SCHEMES });

function makeSender(fetchImpl?: typeof globalThis.fetch): ChainSender {
  const config = resolveChainConfig("TRON", { rpcUrl: node.url, tokens: [...node.tokens], network: "regtest" });
  return createTronSender({
    config,
    keys,
    db: t.db,
    logger: silentLogger(),
    ...(fetchImpl ? { fetch: fetchImpl } : {}),
  });
}

beforeAll(async () => {
  [node, t] = await Promise.all([startTronTestNode({ seed: "tron-sender-test" }), createTestDatabase()]);
  sender = makeSender();
  treasury = sender.address;
  node.transfer(treasury, 1_000n * TRX);
  node.transferToken(treasury, 1_000_000_000n);
  node.mine();
});
afterAll(async () => {
  await node?.stop();
  await t?.drop();
});
beforeEach(() => {
  node.hold(false);
  node.setEnergyPrice(ENERGY_PRICE);
});

const recipient = () => TronKey.fromLabel(`tron-sender-recipient:${++orderSeq}`).address;
const order = (asset: string, to: string, amountRaw: bigint): SendOrder => ({
  id: `send-${++orderSeq}`,
  chain: "TRON",
  asset,
  to,
  amountRaw,
});

const stored = (attempt: SignedAttempt) => storedAttempt("TRON", attempt);

async function signed(o: SendOrder, using = sender): Promise<StoredAttempt> {
  const prepared = await using.prepare([o]);
  return stored(await using.sign(t.db, [o], prepared));
}

async function post(path: string, body: unknown): Promise<Record<string, unknown>> {
  const response = await fetch(`${node.url}${path}`, { method: "POST", body: JSON.stringify(body) });
  return (await response.json()) as Record<string, unknown>;
}

const message = (answer: Record<string, unknown>) => Buffer.from(String(answer.message), "hex").toString("utf8");

describe("Tron sender against the test node", () => {
  it("sends TRX: signed offline, broadcast, mined in the next block, exactly the amount", async () => {
    const to = recipient();
    const attempt = await signed(order("TRX", to, 7n * TRX));
    expect(attempt.from).toBe(treasury);
    expect(attempt.guard).toMatchObject({ expiration: expect.any(Number), refBlockBytes: expect.any(String) });
    expect(JSON.parse(attempt.raw)).toMatchObject({ txID: attempt.txHash, signature: [expect.any(String)] });
    await expect(sender.status(attempt)).resolves.toEqual({ state: "unknown" });
    const before = node.balance(treasury);

    await sender.broadcast(attempt);
    const [height] = node.mine();
    expect(await sender.status(attempt)).toEqual({
      state: "mined",
      blockHeight: height,
      blockHash: node.blockId(height ?? 0),
    });
    expect(node.balance(to)).toBe(7n * TRX);
    expect(node.balance(treasury)).toBe(before - 7n * TRX);
    expect(await sender.blockHash(height ?? 0)).toBe(node.blockId(height ?? 0));
    expect(await sender.head()).toBe(node.head());
  });

  it("sends a TRC-20 with fee_limit = energy estimate x price + buffer, burning TRX for the energy it lacks", async () => {
    const to = recipient();
    const attempt = await signed(order("USDT", to, 2_500_000n));
    const feeLimit = BigInt(String(attempt.fee.feeLimit));
    expect(feeLimit).toBeGreaterThanOrEqual(TRANSFER_ENERGY * ENERGY_PRICE);
    expect(feeLimit).toBeLessThanOrEqual((TRANSFER_ENERGY * ENERGY_PRICE * 14n) / 10n);
    expect(JSON.parse(attempt.raw).raw_data.fee_limit).toBe(Number(feeLimit));
    const trxBefore = node.balance(treasury);
    const tokensBefore = node.tokenBalance(treasury);

    await sender.broadcast(attempt);
    const [height] = node.mine();
    await expect(sender.status(attempt)).resolves.toMatchObject({ state: "mined", blockHeight: height });
    expect(node.tokenBalance(to)).toBe(2_500_000n);
    expect(node.tokenBalance(treasury)).toBe(tokensBefore - 2_500_000n);
    expect(node.balance(treasury)).toBe(trxBefore - TRANSFER_ENERGY * ENERGY_PRICE);
  });

  it("pays the energy from staked energy first: no TRX burnt", async () => {
    node.stakeEnergy(treasury, TRANSFER_ENERGY);
    try {
      const attempt = await signed(order("USDT", recipient(), 1n));
      const trxBefore = node.balance(treasury);
      await sender.broadcast(attempt);
      node.mine();
      await expect(sender.status(attempt)).resolves.toMatchObject({ state: "mined" });
      expect(node.balance(treasury)).toBe(trxBefore);
      expect(node.energy(treasury)).toEqual({ limit: TRANSFER_ENERGY, used: TRANSFER_ENERGY });
    } finally {
      node.stakeEnergy(treasury, 0n);
    }
  });

  it("reports OUT_OF_ENERGY as a failed attempt with its reason: fee_limit burnt, no token moved", async () => {
    const to = recipient();
    const attempt = await signed(order("USDT", to, 3_000_000n));
    const feeLimit = BigInt(String(attempt.fee.feeLimit));
    // The energy price doubles between the estimate and the block: fee_limit no longer buys enough.
    node.setEnergyPrice(ENERGY_PRICE * 2n);
    const trxBefore = node.balance(treasury);
    const tokensBefore = node.tokenBalance(treasury);
    await sender.broadcast(attempt);
    const [height] = node.mine();

    const status = await sender.status(attempt);
    expect(status).toMatchObject({ state: "failed", blockHeight: height, blockHash: node.blockId(height ?? 0) });
    const reason = status.state === "failed" ? status.reason : "";
    expect(reason).toMatch(/^OUT_OF_ENERGY: /);
    expect(reason).toContain(`fee_limit ${feeLimit} sun`);
    expect(node.tokenBalance(to)).toBe(0n);
    expect(node.tokenBalance(treasury)).toBe(tokensBefore);
    const burnt = (feeLimit / (ENERGY_PRICE * 2n)) * ENERGY_PRICE * 2n;
    expect(node.balance(treasury)).toBe(trxBefore - burnt);
    expect(reason).toContain(`${burnt} sun burnt`);
  });

  it("broadcasts idempotently: the same signed transaction again is success, and it lands once", async () => {
    const to = recipient();
    const attempt = await signed(order("TRX", to, 3n * TRX));
    await sender.broadcast(attempt);
    await sender.broadcast(attempt);
    node.mine();
    await sender.broadcast(attempt);
    node.mine();
    expect(node.balance(to)).toBe(3n * TRX);
    await expect(sender.status(attempt)).resolves.toMatchObject({ state: "mined" });
  });

  it("fails the broadcast (to be retried) while the node cannot be reached, and sends it once it can", async () => {
    const to = recipient();
    const attempt = await signed(order("TRX", to, 6n * TRX));
    await node.stop();
    try {
      await expect(sender.broadcast(attempt)).rejects.toMatchObject({ retryable: true });
    } finally {
      await node.restart();
    }
    await sender.broadcast(attempt);
    node.mine();
    await expect(sender.status(attempt)).resolves.toMatchObject({ state: "mined" });
    expect(node.balance(to)).toBe(6n * TRX);
  });

  it("proves an unbroadcast transaction expired once the head passes its expiration; signing again lands once", async () => {
    const to = recipient();
    const o = order("TRX", to, 4n * TRX);
    const first = await signed(o);
    node.mine(19); // 57 s of block time: not expired yet
    await expect(sender.status(first)).resolves.toEqual({ state: "unknown" });
    node.mine(1);
    const expired = await sender.status(first);
    expect(expired).toMatchObject({ state: "expired", reason: expect.stringContaining("in no block") });
    // Too late to broadcast: the node refuses it, as java-tron does, and the sender takes that as
    // final (nothing to retry): the attempt stays expired.
    const refusal = await post("/wallet/broadcasttransaction", JSON.parse(first.raw));
    expect(refusal).toMatchObject({ code: "TRANSACTION_EXPIRATION_ERROR", txid: first.txHash });
    await expect(sender.broadcast(first)).resolves.toBeUndefined();
    await expect(sender.status(first)).resolves.toMatchObject({ state: "expired" });

    const second = await signed(o);
    expect(second.txHash).not.toBe(first.txHash);
    await sender.broadcast(second);
    node.mine();
    await expect(sender.status(second)).resolves.toMatchObject({ state: "mined" });
    await expect(sender.status(first)).resolves.toMatchObject({ state: "expired" });
    expect(node.balance(to)).toBe(4n * TRX);
  });

  it("proves a broadcast transaction that never made a block expired (held back by the node)", async () => {
    const to = recipient();
    const attempt = await signed(order("USDT", to, 5n));
    node.hold(true);
    await sender.broadcast(attempt);
    node.mine(5);
    await expect(sender.status(attempt)).resolves.toEqual({ state: "unknown" });
    node.mine(15);
    await expect(sender.status(attempt)).resolves.toMatchObject({ state: "expired" });
    node.hold(false);
    node.mine();
    expect(node.tokenBalance(to)).toBe(0n);
    await expect(sender.status(attempt)).resolves.toMatchObject({ state: "expired" });
  });

  it("refuses to sign what the node built if it is not the transaction asked for", async () => {
    const thief = TronKey.fromLabel("tron-sender-thief");
    const swapRecipient = (text: string) =>
      text.replace(/"to_address":"41[0-9a-f]{40}"/, `"to_address":"${thief.addressHex}"`);
    // A node that builds a consistent transaction to another recipient (txID and raw_data_hex match it).
    const otherRecipient = makeSender(async (input, init) =>
      String(input).endsWith("/wallet/createtransaction")
        ? fetch(input, { ...init, body: swapRecipient(String(init?.body)) })
        : fetch(input, init),
    );
    // A node whose raw_data says another recipient than the raw_data_hex it hashed.
    const inconsistent = makeSender(async (input, init) => {
      const response = await fetch(input, init);
      if (!String(input).endsWith("/wallet/createtransaction")) return response;
      return new Response(swapRecipient(await response.text()), { status: response.status, headers: response.headers });
    });
    for (const lying of [otherRecipient, inconsistent]) {
      const o = order("TRX", recipient(), TRX);
      await expect(lying.prepare([o])).rejects.toThrow(/another transaction/);
    }
  });

  it("waits for funds it does not have: TRX, tokens, and the TRX a token transfer burns for energy", async () => {
    await expect(sender.prepare([order("TRX", recipient(), 10n ** 12n)])).rejects.toBeInstanceOf(
      InsufficientTreasuryFundsError,
    );
    await expect(sender.prepare([order("USDT", recipient(), 10n ** 12n)])).rejects.toMatchObject({
      code: "insufficient_treasury_funds",
      details: { asset: "USDT" },
    });
    node.setEnergyPrice(10n ** 6n); // 14.65k energy at 1 TRX each: more TRX than the treasury holds
    await expect(sender.prepare([order("USDT", recipient(), 1n)])).rejects.toMatchObject({
      details: { asset: "TRX" },
    });
  });

  it("refuses, for good, a request it can never send: another chain's address, an unknown asset, itself", async () => {
    for (const bad of [
      order("TRX", "0x70997970C51812dc3A010C7d01b50e0d17dc79C8", 1n),
      order("DOGE", recipient(), 1n),
      order("TRX", treasury, 1n),
    ]) {
      await expect(sender.prepare([bad])).rejects.toMatchObject({ code: "validation_error", retryable: false });
    }
  });

  it("reads its balances from the node", async () => {
    await expect(sender.balances()).resolves.toEqual({
      TRX: node.balance(treasury),
      USDT: node.tokenBalance(treasury),
    });
  });

  it("does not replace: there is no fee bump on Tron", async () => {
    const o = order("TRX", recipient(), 1n);
    const attempt = await signed(o);
    await expect(sender.replace(t.db, attempt, [o])).resolves.toBeNull();
  });

  it("is refused by the node with java-tron's codes for a forged signature and a tampered transaction", async () => {
    const attempt = await signed(order("TRX", recipient(), 2n * TRX));
    const raw = JSON.parse(attempt.raw) as { txID: string; raw_data: Record<string, unknown>; signature: string[] };
    const other = TronKey.fromLabel("tron-sender-forger");
    const forged = await post("/wallet/broadcasttransaction", { ...raw, signature: [other.sign(raw.txID)] });
    expect(forged).toMatchObject({ code: "SIGERROR", txid: raw.txID });
    expect(forged).not.toHaveProperty("result");
    expect(message(forged)).toContain("Validate signature error");
    // A refusal for good resolves (nothing to retry); the transaction is in no block.
    await sender.broadcast(stored({ ...attempt, raw: JSON.stringify({ ...raw, signature: [other.sign(raw.txID)] }) }));
    node.mine();
    await expect(sender.status(attempt)).resolves.toEqual({ state: "unknown" });

    // More TRX in the same signed body: another txID, and the signature no longer recovers the owner.
    const contract = (raw.raw_data.contract as Array<{ parameter: { value: Record<string, unknown> } }>)[0];
    const tampered = structuredClone(raw);
    const tamperedContract = (tampered.raw_data.contract as (typeof contract)[])[0];
    if (!contract || !tamperedContract) throw new Error("no contract");
    tamperedContract.parameter.value.amount = 900 * Number(TRX);
    const answer = await post("/wallet/broadcasttransaction", tampered);
    expect(answer).toMatchObject({ code: "SIGERROR" });
    expect(answer.txid).not.toBe(raw.txID);
  });
});
