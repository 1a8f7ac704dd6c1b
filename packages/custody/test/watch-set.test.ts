import { randomBytes, randomUUID } from "node:crypto";
import type { Queryable } from "@mp/db";
import { createTestDatabase, type TestDatabase } from "@mp/db/testing";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createEvmKeyStore, createWatchSet } from "../src/index.ts";
import { type InsertWallet, insertCustomer, insertMerchant, insertWallet } from "./support-db.ts";

let testDb: TestDatabase;
let merchantId: string;
let customerId: string;
let nextIndex = 0;

beforeAll(async () => {
  testDb = await createTestDatabase();
  merchantId = await insertMerchant(testDb.db, 0);
  customerId = await insertCustomer(testDb.db, merchantId);
});
afterAll(async () => {
  await testDb?.drop();
});
beforeEach(async () => {
  await testDb.db.query("DELETE FROM destinations");
});

/** One wallet with a random BASE and SOLANA destination; returns the BASE address (checksum-less mixed case). */
async function addWallet(age?: string): Promise<{ base: string; solana: string }> {
  const base = `0x${randomBytes(20).toString("hex").toUpperCase()}`.replace("0X", "0x");
  const solana = randomBytes(16).toString("base64url");
  await insertWallet(testDb.db, {
    merchantId,
    customerId,
    index: nextIndex++,
    ...(age ? { age } : {}),
    destinations: [
      { chain: "BASE", address: base, addressKey: base.toLowerCase(), path: "m/44'/60'/0'/0/0" },
      { chain: "SOLANA", address: solana, addressKey: solana, path: "m/44'/501'/0'/0'" },
    ],
  });
  return { base, solana };
}

/** The database, counting the destination rows each query reads. */
function countingDb() {
  const counter = { rows: 0 };
  const db: Queryable = {
    async query(text, params) {
      const result = await testDb.db.query(text, params);
      // The first load's size hint (one count over the chain) reads no row into the process.
      if (!text.includes("address_key") || text.includes("sum(length(address_key))")) return result as never;
      // A page of destinations comes folded into one row that says how many it holds.
      for (const row of result.rows as Array<{ count?: number }>) counter.rows += row.count ?? 1;
      return result as never;
    },
  };
  return { db, counter };
}

describe("createWatchSet", () => {
  it("loads the addresses of its own chain, in pages", async () => {
    const wallets = [];
    for (let i = 0; i < 23; i++) wallets.push(await addWallet());
    const base = createWatchSet(testDb.db, "BASE", { pageSize: 5 });
    const solana = createWatchSet(testDb.db, "SOLANA");
    expect(await base.refresh()).toBe(23);
    expect(await solana.refresh()).toBe(23);
    expect(base.size).toBe(23);
    for (const wallet of wallets) {
      expect(base.has(wallet.base.toLowerCase())).toBe(true);
      expect(base.has(wallet.solana)).toBe(false);
      expect(solana.has(wallet.solana)).toBe(true);
      // base64url is case-significant, as base58 is.
      expect(solana.has(wallet.solana.toUpperCase())).toBe(wallet.solana === wallet.solana.toUpperCase());
    }
    expect(base.has(`0x${"00".repeat(20)}`)).toBe(false);
  });

  it("picks up rows added after the first load without reloading everything", async () => {
    for (let i = 0; i < 40; i++) await addWallet("1 hour");
    const { db, counter } = countingDb();
    const watch = createWatchSet(db, "BASE", { pageSize: 16 });
    expect(await watch.refresh()).toBe(40);
    expect(counter.rows).toBe(40);

    counter.rows = 0;
    expect(await watch.refresh()).toBe(0);
    expect(counter.rows).toBe(0);

    const late = [await addWallet(), await addWallet(), await addWallet()];
    counter.rows = 0;
    expect(await watch.refresh()).toBe(3);
    // Only the new rows: those of transactions that had not ended at the previous refresh.
    expect(counter.rows).toBe(3);
    expect(watch.size).toBe(43);
    for (const wallet of late) expect(watch.has(wallet.base.toLowerCase())).toBe(true);
  });

  it("finds a row that commits after a row with a higher seq was loaded", async () => {
    await addWallet("1 hour");
    const watch = createWatchSet(testDb.db, "BASE");
    await watch.refresh();

    // Two concurrent wallet creations: the first takes the lower seq but commits last.
    const seqs = await testDb.db.query<{ seq: string }>(
      "SELECT nextval(pg_get_serial_sequence('destinations', 'seq'))::text AS seq FROM generate_series(1, 2)",
    );
    const [slow, fast] = seqs.rows.map((row) => row.seq);
    const insertAt = async (seq: string | undefined) => {
      const key = `0x${randomBytes(20).toString("hex")}`;
      await testDb.db.query(
        `INSERT INTO destinations (id, seq, wallet_id, merchant_id, chain, address, address_key, derivation_path)
         VALUES ($1, $2, $3, $4, 'BASE', $5, $5, 'm/44''/60''/0''/0/0')`,
        [randomUUID(), seq, await walletWithoutDestinations(), merchantId, key],
      );
      return key;
    };
    const fastKey = await insertAt(fast);
    expect(await watch.refresh()).toBe(1);
    const slowKey = await insertAt(slow);

    expect(await watch.refresh()).toBe(1);
    expect(watch.has(slowKey)).toBe(true);
    expect(watch.has(fastKey)).toBe(true);
  });

  it("runs overlapping refreshes one after the other, counting each address once", async () => {
    for (let i = 0; i < 12; i++) await addWallet();
    const watch = createWatchSet(testDb.db, "SOLANA", { pageSize: 4 });
    const added = await Promise.all([watch.refresh(), watch.refresh(), watch.refresh()]);
    expect(added.reduce((a, b) => a + b, 0)).toBe(12);
    expect(watch.size).toBe(12);
  });

  it("reads keys exactly as stored through its folded pages, whatever characters they hold", async () => {
    const odd = ["a:b", "12:", "💸wallet", "ünïcode"];
    for (const [i, key] of odd.entries()) {
      await walletWith([{ chain: "SOLANA", address: key, addressKey: key, path: `m/44'/501'/${i}'/0'` }]);
    }
    const watch = createWatchSet(testDb.db, "SOLANA", { pageSize: 3 });
    expect(await watch.refresh()).toBe(odd.length);
    for (const key of odd) expect(watch.has(key)).toBe(true);
    expect(watch.has("a")).toBe(false);
    expect(watch.has("💸")).toBe(false);
  });

  it("shares one key store between EVM chains: an address held once, each chain matching its own", async () => {
    const shared = `0x${randomBytes(20).toString("hex")}`;
    const baseOnly = `0x${randomBytes(20).toString("hex")}`;
    const odd = "0xnot-canonical-but-stored";
    await walletWith([
      { chain: "BASE", address: shared, addressKey: shared, path: "m/44'/60'/0'/0/0" },
      { chain: "ARBITRUM", address: shared, addressKey: shared, path: "m/44'/60'/0'/0/0" },
      { chain: "SOLANA", address: "So1anaKey", addressKey: "So1anaKey", path: "m/44'/501'/0'/0'" },
    ]);
    await walletWith([
      { chain: "BASE", address: baseOnly, addressKey: baseOnly, path: "m/44'/60'/0'/0/1" },
      { chain: "ARBITRUM", address: odd, addressKey: odd, path: "m/44'/60'/0'/0/1" },
    ]);
    const evmKeys = createEvmKeyStore();
    const base = createWatchSet(testDb.db, "BASE", { evmKeys });
    const arbitrum = createWatchSet(testDb.db, "ARBITRUM", { evmKeys });
    // Not an EVM chain: keeps its own set whatever it is handed.
    const solana = createWatchSet(testDb.db, "SOLANA", { evmKeys });
    expect(await base.refresh()).toBe(2);
    expect(await arbitrum.refresh()).toBe(2);
    expect(await solana.refresh()).toBe(1);
    expect([base.size, arbitrum.size, solana.size]).toEqual([2, 2, 1]);
    // Three distinct EVM keys, the shared address once.
    expect(evmKeys.keys.size).toBe(3);
    expect(base.byteLength).toBe(arbitrum.byteLength);

    expect(base.has(shared)).toBe(true);
    expect(arbitrum.has(shared.toUpperCase().replace("0X", "0x"))).toBe(true);
    expect(base.has(baseOnly)).toBe(true);
    expect(arbitrum.has(baseOnly)).toBe(false);
    expect(arbitrum.has(odd)).toBe(true);
    expect(base.has(odd)).toBe(false);
    expect(solana.has("So1anaKey")).toBe(true);
    expect(base.has("So1anaKey")).toBe(false);

    // A later wallet on Arbitrum alone: the address Base already holds joins Arbitrum's member only.
    await walletWith([{ chain: "ARBITRUM", address: baseOnly, addressKey: baseOnly, path: "m/44'/60'/1'/0/0" }]);
    expect(await arbitrum.refresh()).toBe(1);
    expect(arbitrum.has(baseOnly)).toBe(true);
    expect(evmKeys.keys.size).toBe(3);
    expect(await base.refresh()).toBe(0);
  });
});

async function walletWithoutDestinations(): Promise<string> {
  return walletWith([]);
}

/** A wallet of the test's merchant and customer with exactly these destinations. */
async function walletWith(destinations: InsertWallet["destinations"]): Promise<string> {
  return insertWallet(testDb.db, { merchantId, customerId, index: nextIndex++, destinations });
}
