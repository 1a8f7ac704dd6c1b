import type { Indexer } from "@mp/indexer";
import { getMerchantBalance, releaseHeldDeposit, returnHeldDeposit } from "@mp/ledger";
import { describe, expect, it } from "vitest";
import {
  addWallet,
  catchUp,
  createMerchant,
  depositsOf,
  expectedFee,
  expectLedgerOk,
  rejectCustomer,
  type TestMerchant,
  useIndexerSuite,
} from "./indexer-fixtures.ts";
import { CONFIRMATIONS, startEvmChain } from "./test-chains.ts";

/**
 * Money that arrives for a customer whose verification was rejected: recorded, credited to the
 * merchant's held account (never available, never lost), then released or returned by an operator.
 * Chain-agnostic logic, so one family (a real anvil) is enough.
 */
describe("deposits to a rejected customer's address", () => {
  const { db, chain, startIndexer } = useIndexerSuite(startEvmChain);

  async function confirmedDeposit(indexer: Indexer, merchant: TestMerchant, address: string, i: number) {
    const amount = chain.amount(i);
    await chain.pay(address, amount);
    await chain.mine(CONFIRMATIONS - 1);
    await catchUp(indexer);
    const deposit = (await depositsOf(db, merchant.merchantId)).at(-1);
    if (!deposit) throw new Error("no deposit");
    const gross = chain.usdMicros(amount);
    return { deposit, net: gross - expectedFee(merchant, gross) };
  }

  async function holdOf(depositId: string) {
    const { rows } = await db.query<{ hold_status: string | null; held_reason: string | null }>(
      "SELECT hold_status, held_reason FROM deposits WHERE id = $1",
      [depositId],
    );
    return rows[0];
  }

  it("credits it to held, not available; an operator release then makes it spendable", async () => {
    const merchant = await createMerchant(db);
    const address = chain.address();
    await addWallet(db, merchant, chain.chain, address);
    await rejectCustomer(db, merchant);
    const { deposit, net } = await confirmedDeposit(startIndexer(), merchant, address, 5);
    expect(deposit.status).toBe("CONFIRMED");
    expect(await holdOf(deposit.id)).toEqual({ hold_status: "HELD", held_reason: "customer_rejected" });
    expect(await getMerchantBalance(db, merchant.merchantId)).toEqual({ available: 0n, reserved: 0n, held: net });
    await expectLedgerOk(db);

    await db.tx((c) => releaseHeldDeposit(c, { depositId: deposit.id }));
    expect(await holdOf(deposit.id)).toEqual({ hold_status: "RELEASED", held_reason: "customer_rejected" });
    expect(await getMerchantBalance(db, merchant.merchantId)).toEqual({ available: net, reserved: 0n, held: 0n });
  });

  it("credits an approved customer's deposit to available as before", async () => {
    const merchant = await createMerchant(db);
    const address = chain.address();
    await addWallet(db, merchant, chain.chain, address);
    const { deposit, net } = await confirmedDeposit(startIndexer(), merchant, address, 6);
    expect(await holdOf(deposit.id)).toEqual({ hold_status: null, held_reason: null });
    expect(await getMerchantBalance(db, merchant.merchantId)).toEqual({ available: net, reserved: 0n, held: 0n });
  });

  it("a returned deposit is owed to its payer; a reorg of a held one takes it out of held", async () => {
    const merchant = await createMerchant(db);
    const address = chain.address();
    await addWallet(db, merchant, chain.chain, address);
    await rejectCustomer(db, merchant);
    const indexer = startIndexer();
    const first = await confirmedDeposit(indexer, merchant, address, 7);
    await db.tx((c) => returnHeldDeposit(c, { depositId: first.deposit.id, reason: "rejected by compliance" }));
    expect(await getMerchantBalance(db, merchant.merchantId)).toEqual({ available: 0n, reserved: 0n, held: 0n });
    await expectLedgerOk(db);

    const second = await confirmedDeposit(indexer, merchant, address, 8);
    expect(await getMerchantBalance(db, merchant.merchantId)).toEqual({
      available: 0n,
      reserved: 0n,
      held: second.net,
    });
    await chain.reorg(CONFIRMATIONS, []);
    await catchUp(indexer);
    const reversed = (await depositsOf(db, merchant.merchantId)).find((d) => d.id === second.deposit.id);
    expect(reversed?.status).toBe("REVERSED");
    expect(await getMerchantBalance(db, merchant.merchantId)).toEqual({ available: 0n, reserved: 0n, held: 0n });
  });
});
