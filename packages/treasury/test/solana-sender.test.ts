import { randomUUID } from "node:crypto";
import { solanaFamily } from "@mp/chain-solana";
import { createLogger, silentLogger, ValidationError } from "@mp/core";
import { createTestDatabase, type TestDatabase } from "@mp/db/testing";
import { Keypair, VersionedTransaction } from "@solana/web3.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { InsufficientTreasuryFundsError, type SendOrder, type StoredAttempt } from "../src/chain-sender.ts";
import { LAMPORTS_PER_SOL, type SolanaTreasuryHarness, startSolanaTreasury } from "./support/solana-treasury.ts";
import { storedAttempt } from "./support/stored-attempt.ts";

/**
 * The Solana sender on its own against the test node (nothing stored): what it signs, what the
 * node does with it, and when status() says a signed transaction can never land.
 */
let t: TestDatabase;
let h: SolanaTreasuryHarness;

beforeAll(async () => {
  t = await createTestDatabase();
  h = await startSolanaTreasury(t.db);
}, 60_000);

afterAll(async () => {
  await h?.node.stop();
  await t?.drop();
});

const wallet = () => Keypair.generate().publicKey.toBase58();
const order = (asset: string, to: string, amountRaw: bigint): SendOrder => ({
  id: randomUUID(),
  chain: "SOLANA",
  asset,
  to,
  amountRaw,
});

async function signOne(o: SendOrder): Promise<StoredAttempt> {
  const sender = h.sender();
  const prepared = await sender.prepare([o]);
  return storedAttempt("SOLANA", await sender.sign(t.db, [o], prepared));
}

/** The program ids of the landed transaction's instructions, in order. */
function programsOf(signature: string): string[] {
  const landed = h.node.transaction(signature);
  if (!landed) throw new Error(`${signature} did not land`);
  const message = VersionedTransaction.deserialize(landed.wire).message;
  return message.compiledInstructions.map((ix) => message.staticAccountKeys[ix.programIdIndex]?.toBase58() ?? "");
}

const SYSTEM = "11111111111111111111111111111111";
const TOKEN = "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA";
const ATA = "ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL";

describe("the Solana sender against the test node", () => {
  it("is the solana family's factory, signing for the treasury key", () => {
    expect(solanaFamily.family).toBe("solana");
    const sender = solanaFamily.createSender({ config: h.config, keys: h.keys, db: t.db, logger: silentLogger() });
    expect(sender?.address).toBe(h.treasury);
    expect(sender?.maxBatch).toBe(1);
  });

  it("sends SOL once however often the same signed transaction is broadcast", async () => {
    // Warnings kept: a refusal the sender does not take for success is logged, AlreadyProcessed is not.
    const warnings: string[] = [];
    const logger = createLogger({ level: "warn", destination: { write: (line: string) => warnings.push(line) } });
    const sender = h.sender({ logger });
    const to = wallet();
    const before = h.node.balance(h.treasury);
    const attempt = await signOne(order("SOL", to, 2n * LAMPORTS_PER_SOL));
    expect(attempt.guard).toMatchObject({ blockhash: expect.any(String), lastValidBlockHeight: expect.any(Number) });
    expect(await sender.status(attempt)).toEqual({ state: "unknown" });
    await sender.broadcast(attempt);
    await sender.broadcast(attempt);
    const [slot] = h.node.mine();
    // Again once landed: the node's preflight answers err "AlreadyProcessed", which is success.
    await sender.broadcast(attempt);
    expect(warnings).toEqual([]);
    h.node.mine();
    expect(h.node.balance(to)).toBe(2n * LAMPORTS_PER_SOL);
    expect(h.node.balance(h.treasury)).toBe(before - 2n * LAMPORTS_PER_SOL - 5_000n);
    expect(programsOf(attempt.txHash)).toEqual([SYSTEM]);
    const status = await sender.status(attempt);
    expect(status).toEqual({ state: "mined", blockHeight: slot, blockHash: h.node.blockhash(slot ?? -1) });
    expect(await sender.head()).toBe(h.node.head());
    expect(await sender.blockHash(slot ?? -1)).toBe(h.node.blockhash(slot ?? -1));
    expect(await sender.replace(t.db, attempt, [])).toBeNull();
  });

  it("sends a token, creating the recipient's associated token account only when it has none", async () => {
    const sender = h.sender();
    const to = wallet();
    const solBefore = h.node.balance(h.treasury);
    const first = await signOne(order("USDC", to, 1_500_000n));
    await sender.broadcast(first);
    h.node.mine();
    expect(programsOf(first.txHash)).toEqual([ATA, TOKEN]);
    const second = await signOne(order("USDC", to, 250_000n));
    await sender.broadcast(second);
    h.node.mine();
    expect(programsOf(second.txHash)).toEqual([TOKEN]);
    expect(h.node.tokenBalance(to, "USDC")).toBe(1_750_000n);
    // The account's rent once, two fees.
    expect(h.node.balance(h.node.associatedTokenAddress(to, "USDC"))).toBe(2_039_280n);
    expect(h.node.balance(h.treasury)).toBe(solBefore - 2_039_280n - 10_000n);
    expect(await sender.status(second)).toMatchObject({ state: "mined" });
    const balances = await sender.balances();
    expect(balances.SOL).toBe(h.node.balance(h.treasury));
    expect(balances.USDC).toBe(h.node.tokenBalance(h.treasury, "USDC"));
    expect(balances.USDT).toBe(0n);
  });

  it("refuses at prepare what the treasury cannot cover, or what can never land", async () => {
    const sender = h.sender();
    await expect(sender.prepare([order("SOL", wallet(), 1_000n * LAMPORTS_PER_SOL)])).rejects.toBeInstanceOf(
      InsufficientTreasuryFundsError,
    );
    await expect(sender.prepare([order("USDT", wallet(), 1n)])).rejects.toBeInstanceOf(InsufficientTreasuryFundsError);
    // A SOL amount below rent cannot open a new wallet: refused for good, not retried.
    await expect(sender.prepare([order("SOL", wallet(), 1_000n)])).rejects.toBeInstanceOf(ValidationError);
    await expect(sender.prepare([order("DOGE", wallet(), 1n)])).rejects.toBeInstanceOf(ValidationError);
    await expect(sender.prepare([order("SOL", "not-an-address", 1n)])).rejects.toBeInstanceOf(ValidationError);
  });

  it("says expired only when the finalized height is past lastValidBlockHeight and the signature is nowhere", async () => {
    const sender = h.sender();
    const to = wallet();
    const attempt = await signOne(order("SOL", to, LAMPORTS_PER_SOL));
    const lastValid = (attempt.guard as { lastValidBlockHeight: number }).lastValidBlockHeight;
    h.node.dropIncoming(true);
    try {
      await sender.broadcast(attempt);
      const height = async () => {
        const response = await fetch(h.node.url, {
          method: "POST",
          body: JSON.stringify({
            jsonrpc: "2.0",
            id: 1,
            method: "getBlockHeight",
            params: [{ commitment: "confirmed" }],
          }),
        });
        return ((await response.json()) as { result: number }).result;
      };
      // Past lastValidBlockHeight at the tip, but not yet finalized past it: not proven.
      h.node.mine(lastValid - (await height()) + 1);
      expect(await height()).toBe(lastValid + 1);
      expect(await sender.status(attempt)).toEqual({ state: "unknown" });
      // The node refuses the stale bytes now: broadcast does not throw (status settles it).
      await sender.broadcast(attempt);
      h.node.mine(32);
      expect(await sender.status(attempt)).toMatchObject({ state: "expired" });
    } finally {
      h.node.dropIncoming(false);
    }
    await sender.broadcast(attempt);
    h.node.mine();
    expect(h.node.transaction(attempt.txHash)).toBeUndefined();
    expect(h.node.balance(to)).toBe(0n);
  });
});
