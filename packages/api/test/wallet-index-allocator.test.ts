import { createTestDatabase, type TestDatabase } from "@mp/db/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMerchant } from "../src/index.ts";
import { WALLET_INDEX_BLOCK, WalletIndexAllocator } from "../src/wallets/wallet-index-allocator.ts";

describe("WalletIndexAllocator (blocks of the merchant's counter, real database)", () => {
  let testDb: TestDatabase;
  beforeAll(async () => {
    testDb = await createTestDatabase();
  });
  afterAll(async () => {
    await testDb.drop();
  });

  const counter = async (merchantId: string) =>
    (
      await testDb.db.query<{ next: number }>("SELECT next_wallet_index AS next FROM merchants WHERE id = $1", [
        merchantId,
      ])
    ).rows[0]?.next;

  it("hands out indexes from 0 in order, reserving one block per round trip", async () => {
    const { merchantId } = await createMerchant(testDb.db, { name: "alloc-order", environment: "sandbox" });
    const allocator = new WalletIndexAllocator(testDb.db);
    const first = await allocator.take(merchantId);
    expect(first.index).toBe(0);
    expect(await counter(merchantId)).toBe(WALLET_INDEX_BLOCK);
    const rest = [];
    for (let i = 1; i <= WALLET_INDEX_BLOCK; i++) rest.push((await allocator.take(merchantId)).index);
    expect(rest).toEqual(Array.from({ length: WALLET_INDEX_BLOCK }, (_, i) => i + 1));
    expect(await counter(merchantId)).toBe(2 * WALLET_INDEX_BLOCK);
  });

  it("gives two processes disjoint indexes under concurrent takes, each once", async () => {
    const { merchantId } = await createMerchant(testDb.db, { name: "alloc-two", environment: "sandbox" });
    const one = new WalletIndexAllocator(testDb.db);
    const two = new WalletIndexAllocator(testDb.db);
    const taken = await Promise.all(Array.from({ length: 200 }, (_, i) => (i % 2 === 0 ? one : two).take(merchantId)));
    const indexes = taken.map((slot) => slot.index);
    expect(new Set(indexes).size).toBe(200);
    expect(Math.min(...indexes)).toBe(0);
    // Nothing beyond what was reserved, and at most one partly used block per process.
    const reserved = (await counter(merchantId)) ?? 0;
    expect(Math.max(...indexes)).toBeLessThan(reserved);
    expect(reserved - 200).toBeLessThan(2 * WALLET_INDEX_BLOCK);
    expect(new Set(taken.map((slot) => slot.account)).size).toBe(1);
  });

  it("hands a given-back index out again before new ones; ignores a slot of another account", async () => {
    const { merchantId } = await createMerchant(testDb.db, { name: "alloc-back", environment: "sandbox" });
    const allocator = new WalletIndexAllocator(testDb.db);
    const a = await allocator.take(merchantId);
    const b = await allocator.take(merchantId);
    allocator.giveBack(merchantId, b);
    allocator.giveBack(merchantId, { account: a.account + 1, index: 99 });
    expect(allocator.peek(merchantId)).toEqual(b);
    expect(await allocator.take(merchantId)).toEqual(b);
    expect((await allocator.take(merchantId)).index).toBe(2);
  });

  it("keeps blocks for a bounded number of merchants; a merchant dropped and back gets a fresh block", async () => {
    const first = await createMerchant(testDb.db, { name: "alloc-lru-1", environment: "sandbox" });
    const second = await createMerchant(testDb.db, { name: "alloc-lru-2", environment: "sandbox" });
    const allocator = new WalletIndexAllocator(testDb.db, 1);
    expect((await allocator.take(first.merchantId)).index).toBe(0);
    expect((await allocator.take(second.merchantId)).index).toBe(0);
    // The first merchant's block (0..15) was dropped: the next index comes from a new block, never 1 again.
    expect((await allocator.take(first.merchantId)).index).toBe(WALLET_INDEX_BLOCK);
    expect(await counter(first.merchantId)).toBe(2 * WALLET_INDEX_BLOCK);
  });

  it("fails a take for a merchant that does not exist, reserving nothing", async () => {
    const allocator = new WalletIndexAllocator(testDb.db);
    await expect(allocator.take("6f1c1c1e-3333-4333-8333-333333333333")).rejects.toMatchObject({
      code: "internal_error",
    });
  });
});
