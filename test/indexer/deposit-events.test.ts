import { DEPOSIT_COLUMNS, type DepositRow, depositResource, toDepositResource } from "@mp/events";
import { releaseHeldDeposit, returnHeldDeposit } from "@mp/ledger";
import { describe, expect, it } from "vitest";
import {
  addWallet,
  catchUp,
  createMerchant,
  depositsOf,
  rejectCustomer,
  type TestMerchant,
  useIndexerSuite,
} from "./indexer-fixtures.ts";
import { CONFIRMATIONS, startEvmChain } from "./test-chains.ts";

interface StoredEvent {
  id: string;
  type: string;
  object_type: string;
  object_id: string;
  object_version: number;
  merchant_id: string;
  environment: string;
  idempotency_key: string | null;
  data: Record<string, unknown>;
}

/**
 * The deposit events the indexer and the operator's held-deposit decisions append: one per change,
 * in the change's transaction, each with the deposit as the API shows it and the next version.
 * Chain-agnostic code, so one family (a real anvil) is enough.
 */
describe("deposit events from the indexer", () => {
  const { db, chain, startIndexer } = useIndexerSuite(startEvmChain);

  async function eventsOf(objectId: string): Promise<StoredEvent[]> {
    const { rows } = await db.query<StoredEvent>(
      `SELECT id, type, object_type, object_id, object_version, merchant_id, environment, idempotency_key, data
         FROM events WHERE object_id = $1 ORDER BY object_version`,
      [objectId],
    );
    return rows;
  }

  /**
   * The deposit as GET answers it now, but with the event's confirmations (the head has moved on
   * since): a confirmation's event is rendered in SQL by the statement sent right after its UPDATE
   * (deposit_resource), so every other field, confirmed_at to the millisecond, must be what GET shows.
   */
  async function storedAs(event: StoredEvent | undefined): Promise<Record<string, unknown>> {
    const { rows } = await db.query<DepositRow>(`SELECT ${DEPOSIT_COLUMNS} FROM deposits WHERE id = $1`, [
      event?.object_id,
    ]);
    if (!rows[0]) throw new Error(`deposit ${event?.object_id} not found`);
    return { ...toDepositResource(rows[0], new Map()), confirmations: event?.data.confirmations };
  }

  async function merchantWithAddress(): Promise<{ merchant: TestMerchant; address: string }> {
    const merchant = await createMerchant(db);
    const address = chain.address();
    await addWallet(db, merchant, chain.chain, address);
    return { merchant, address };
  }

  it("pending when first seen, confirmed when credited, reversed by a reorg: versions 1, 2, 3", async () => {
    const { merchant, address } = await merchantWithAddress();
    const indexer = startIndexer();
    await catchUp(indexer);
    const amount = chain.amount(31);
    const txHash = await chain.pay(address, amount);
    await catchUp(indexer);
    const [deposit] = await depositsOf(db, merchant.merchantId);
    if (!deposit) throw new Error("no deposit");

    const [pending, ...none] = await eventsOf(deposit.id);
    expect(none).toEqual([]);
    expect(pending).toMatchObject({
      type: "deposit.pending",
      object_type: "deposit",
      object_version: 1,
      merchant_id: merchant.merchantId,
      environment: "sandbox",
      idempotency_key: null,
    });
    // The API form, exactly: the schema GET /v1/deposits answers with parses it unchanged.
    expect(depositResource.parse(pending?.data)).toEqual(pending?.data);
    expect(pending?.data).toMatchObject({
      id: deposit.id,
      merchant_id: merchant.merchantId,
      tx_hash: txHash,
      status: "PENDING",
      amount_raw: amount.toString(),
      amount_usd: null,
      confirmations: 1,
      required_confirmations: CONFIRMATIONS,
    });

    await chain.mine(CONFIRMATIONS - 1);
    await catchUp(indexer);
    const confirmed = (await eventsOf(deposit.id))[1];
    expect(confirmed).toMatchObject({ type: "deposit.confirmed", object_version: 2 });
    const [credited] = await depositsOf(db, merchant.merchantId);
    expect(confirmed?.data).toMatchObject({
      status: "CONFIRMED",
      held: false,
      hold_status: null,
      confirmations: CONFIRMATIONS,
      amount_usd: expect.stringMatching(/^\d+\.\d{6}$/),
    });
    expect(depositResource.parse(confirmed?.data)).toEqual(confirmed?.data);
    expect(confirmed?.data).toEqual(await storedAs(confirmed));
    expect(BigInt(String(confirmed?.data.net_amount_usd).replace(".", ""))).toBe(
      BigInt(credited?.net_amount_usd_micros ?? -1),
    );

    // Nothing changes on later ticks: no event without a change.
    await chain.mine(2);
    await catchUp(indexer);
    expect(await eventsOf(deposit.id)).toHaveLength(2);

    await chain.reorg(CONFIRMATIONS + 2, []);
    await catchUp(indexer);
    const events = await eventsOf(deposit.id);
    expect(events.map((e) => [e.type, e.object_version])).toEqual([
      ["deposit.pending", 1],
      ["deposit.confirmed", 2],
      ["deposit.reversed", 3],
    ]);
    expect(events[2]?.data).toMatchObject({ status: "REVERSED", confirmations: 0, reversed_at: expect.any(String) });
  });

  it("a rolled-back transaction leaves no event: a crash after the pending event, then after the credit", async () => {
    const { merchant, address } = await merchantWithAddress();
    const warmup = startIndexer();
    await catchUp(warmup);
    await warmup.stop();
    await chain.pay(address, chain.amount(32));
    await chain.mine(CONFIRMATIONS - 1);
    // "after-deposits" fires after recordDeposits appended the deposit.pending event, in its transaction.
    const crashOnRecord = startIndexer({
      failpoint: (name) => {
        if (name === "after-deposits") throw new Error("crash after deposits");
      },
    });
    await expect(crashOnRecord.tick()).rejects.toThrow("crash after deposits");
    expect(await depositsOf(db, merchant.merchantId)).toEqual([]);
    const { rows } = await db.query("SELECT 1 FROM events WHERE merchant_id = $1", [merchant.merchantId]);
    expect(rows).toEqual([]);
    await crashOnRecord.stop();

    const crashOnCredit = startIndexer({
      failpoint: (name) => {
        if (name === "after-credit") throw new Error("crash after credit");
      },
    });
    await expect(catchUp(crashOnCredit)).rejects.toThrow("crash after credit");
    const [deposit] = await depositsOf(db, merchant.merchantId);
    if (!deposit) throw new Error("no deposit");
    expect(deposit.status).toBe("PENDING");
    expect((await eventsOf(deposit.id)).map((e) => e.type)).toEqual(["deposit.pending"]);
    await crashOnCredit.stop();

    const restarted = startIndexer();
    await catchUp(restarted);
    await catchUp(restarted);
    expect((await eventsOf(deposit.id)).map((e) => [e.type, e.object_version])).toEqual([
      ["deposit.pending", 1],
      ["deposit.confirmed", 2],
    ]);
  });

  it("a rejected customer's deposit: confirmed then held; the operator's release or return follows", async () => {
    const { merchant, address } = await merchantWithAddress();
    await rejectCustomer(db, merchant);
    const indexer = startIndexer();
    await catchUp(indexer);
    await chain.pay(address, chain.amount(33));
    await chain.pay(address, chain.amount(34));
    await chain.mine(CONFIRMATIONS - 1);
    await catchUp(indexer);
    const [first, second] = await depositsOf(db, merchant.merchantId);
    if (!first || !second) throw new Error("two deposits expected");
    const held = await eventsOf(first.id);
    expect(held.map((e) => [e.type, e.object_version])).toEqual([
      ["deposit.pending", 1],
      ["deposit.confirmed", 2],
      ["deposit.held", 3],
    ]);
    expect(held[2]?.data).toMatchObject({ held: true, hold_status: "HELD", held_reason: "customer_rejected" });
    // Both events carry the row as the confirmation wrote it, the hold included.
    expect(held[1]?.data).toEqual(await storedAs(held[1]));
    expect(held[2]?.data).toEqual(await storedAs(held[2]));

    await db.tx((c) => releaseHeldDeposit(c, { depositId: first.id }));
    expect((await eventsOf(first.id))[3]).toMatchObject({
      type: "deposit.released",
      object_version: 4,
      data: { held: false, hold_status: "RELEASED" },
    });
    await db.tx((c) => returnHeldDeposit(c, { depositId: second.id, reason: "refused by compliance" }));
    expect((await eventsOf(second.id)).at(-1)).toMatchObject({
      type: "deposit.returned",
      object_version: 4,
      data: { held: false, hold_status: "RETURNED" },
    });
    // A refused second decision changes nothing, so it appends nothing.
    await expect(db.tx((c) => releaseHeldDeposit(c, { depositId: first.id }))).rejects.toThrow();
    expect(await eventsOf(first.id)).toHaveLength(4);
  });
});
