import { type AppDeps, WalletSlots } from "@mp/api";
import { createCustody } from "@mp/custody";
import type { Indexer } from "@mp/indexer";
import { checkLedger, getMerchantBalance } from "@mp/ledger";
import { matchPaymentRequestsOnce } from "@mp/payment-requests";
import { beforeAll, describe, expect, it } from "vitest";
import { KEY_SCHEMES } from "../../services/payments/src/chain-families.ts";
import { catchUp, newIndexer } from "../indexer/indexer-fixtures.ts";
import { CONFIRMATIONS, startBitcoinChain, startEvmChain, type TestChain } from "../indexer/test-chains.ts";
import { useApiHarness } from "../support/api-harness.ts";
import { useStarted } from "../support/use-started.ts";
import { checkedCalls, USD_25 } from "./payment-request-support.ts";

/** Receive addresses of another mnemonic than anvil's development accounts: an address gets only what a test pays it. */
const RECEIVE_MNEMONIC = "legal winner thank year wave sausage worth useful legal winner thank yellow";

/**
 * Matching with real deposits: USDC on anvil (BASE) and BTC on the Bitcoin test node, recorded,
 * confirmed and credited by the real indexer; the matcher's passes count them toward the requests.
 * The merchant's balance moves exactly as the deposits' credits (fee included), once, whatever the
 * matcher repeats; a reorganisation takes a payment back out; late money is credited and flagged.
 */
describe("payment requests: matching real deposits through the indexer", () => {
  // Started in this order, stopped in the reverse one (vitest runs afterAll hooks as a stack).
  const base = useStarted("the EVM test chain", startEvmChain, (chain) => chain.close());
  const bitcoin = useStarted("the Bitcoin test chain", startBitcoinChain, (chain) => chain.close());
  const { api, merchant: m } = useApiHarness({
    overrides: (db): Partial<AppDeps> => {
      const custody = createCustody(RECEIVE_MNEMONIC, { bitcoinNetwork: "regtest", schemes: KEY_SCHEMES });
      const addresses = {
        deriveWalletAddresses: (account: number, index: number) => custody.deriveWalletAddresses(account, index),
      };
      return {
        addresses,
        walletSlots: new WalletSlots(db, addresses),
        chains: { BASE: base.config, BITCOIN: bitcoin.config },
      };
    },
  });
  const baseIndexer = useStarted(
    "the BASE indexer",
    async () => newIndexer(api.db, base),
    (i) => i.stop(),
  );
  const bitcoinIndexer = useStarted(
    "the Bitcoin indexer",
    async () => newIndexer(api.db, bitcoin),
    (i) => i.stop(),
  );
  let c: Awaited<ReturnType<typeof checkedCalls>>;

  beforeAll(async () => {
    // A deposit fee: a request's deposits pay it like any deposit.
    await api.db.query("UPDATE merchants SET fee_bps = 100, fee_fixed_micros = 10000 WHERE id = $1", [m.merchantId]);
    c = await checkedCalls(api);
  });

  const settings = () => ({ publicUrl: api.url, chains: api.deps.chains, paymentUri: api.deps.paymentUri });
  const match = () => matchPaymentRequestsOnce(api.db, settings());
  const request = async (id: string) => (await c.get(m, id)).body.data;
  const eventTypes = async (id: string) =>
    ((await c.call(m.apiKey, `/v1/events?object_id=${id}&limit=200`)).body.data.items as Array<{ type: string }>)
      .map((e) => e.type)
      .reverse();
  /** The request's events, oldest first, are exactly payment_request.created and then `after` (payment_request.*). */
  const expectEvents = async (id: string, ...after: string[]) =>
    expect(await eventTypes(id)).toEqual([
      "payment_request.created",
      ...after.map((type) => `payment_request.${type}`),
    ]);
  const available = async () => (await getMerchantBalance(api.db, m.merchantId)).available;
  const optionOf = (
    r: { options: Array<{ network: string; address: string; amount_missing: string }> },
    network: string,
  ) => {
    const option = r.options.find((o) => o.network === network);
    if (!option) throw new Error(`no ${network} option`);
    return option;
  };
  /** Pays `units` on `chain` to the request's address there; the indexer records it (seen, not confirmed). */
  const paySeen = async (chain: TestChain, indexer: Indexer, address: string, units: bigint) => {
    const tx = await chain.pay(address, units);
    await catchUp(indexer);
    return tx;
  };
  const confirm = async (chain: TestChain, indexer: Indexer) => {
    await chain.mine(CONFIRMATIONS);
    await catchUp(indexer);
  };
  /** Pays `units` on `chain` to the request's address there, confirmed, then one matching pass. */
  const payConfirmedMatched = async (chain: TestChain, indexer: Indexer, address: string, units: bigint) => {
    const tx = await paySeen(chain, indexer, address, units);
    await confirm(chain, indexer);
    await match();
    return tx;
  };
  const expectLedgerClean = async () => expect(await checkLedger(api.db)).toMatchObject({ ok: true, problems: [] });

  it("USDC on BASE: seen -> processing, confirmed -> paid, once; the balance moves by the deposit's net credit", async () => {
    const created = (await c.create(m, USD_25)).body.data;
    const before = await available();
    await paySeen(base, baseIndexer, optionOf(created, "BASE").address, 25_000_000n);
    expect((await match()).matched).toBe(1);
    let r = await request(created.id);
    expect(r).toMatchObject({
      status: "processing",
      amount_pending: "25.00",
      amount_paid: "0.00",
      amount_missing: "0.00",
    });
    expect(r.payments).toEqual([
      expect.objectContaining({
        network: "BASE",
        asset: "USDC",
        amount: "25",
        status: "PENDING",
        counted: true,
        flag: null,
      }),
    ]);
    // Once a payment is seen the quote holds until the request expires.
    expect(r.rate_locked_until).toBe(r.expires_at);

    await confirm(base, baseIndexer);
    await match();
    r = await request(created.id);
    expect(r).toMatchObject({
      status: "paid",
      amount_paid: "25.00",
      amount_pending: "0.00",
      paid_at: expect.any(String),
    });
    expect(r.payments[0]).toMatchObject({ status: "CONFIRMED", confirmations: CONFIRMATIONS });
    await expectEvents(created.id, "processing", "paid");
    // The deposit's own credit, fee taken (1% + 0.01): 25 - 0.26 = 24.74; nothing else.
    expect((await available()) - before).toBe(24_740_000n);
    const deposit = (await c.call(m.apiKey, `/v1/deposits/${r.payments[0].deposit_id}`)).body.data;
    expect(deposit).toMatchObject({ status: "CONFIRMED", amount_usd: "25.000000", fee_usd: "0.260000" });
    // Matching again (or twice at once) changes nothing and appends nothing.
    await Promise.all([match(), match()]);
    expect(await eventTypes(created.id)).toHaveLength(3);
    expect((await available()) - before).toBe(24_740_000n);
    const checkout = await c.checkout(created.hosted_url);
    expect(checkout).toMatchObject({ status: "paid", options: [], success_url: USD_25.success_url });
    await expectLedgerClean();
  });

  it("a short BTC payment is underpaid with what is missing; a USDC top-up completes it", async () => {
    const created = (await c.create(m, USD_25)).body.data;
    // 0.00015385 BTC of 0.00038462: 10.00 USD at 65,000.
    await payConfirmedMatched(bitcoin, bitcoinIndexer, optionOf(created, "BITCOIN").address, 15_385n);
    let r = await request(created.id);
    expect(r).toMatchObject({ status: "underpaid", amount_paid: "10.00", amount_missing: "15.00" });
    expect(optionOf(r, "BITCOIN").amount_missing).toBe("0.00023077");
    expect(optionOf(r, "BASE").amount_missing).toBe("14.999871");
    const page = await c.checkout(created.hosted_url);
    expect(page.options.find((o: { network: string }) => o.network === "BASE").payment_uri).toContain(
      "uint256=14999871",
    );

    await payConfirmedMatched(base, baseIndexer, optionOf(r, "BASE").address, 14_999_871n);
    r = await request(created.id);
    expect(r).toMatchObject({ status: "paid", amount_paid: "25.00", amount_missing: "0.00", amount_excess: "0.00" });
    // Seen and confirmed between two passes: straight to paid.
    await expectEvents(created.id, "underpaid", "paid");
    await expectLedgerClean();
  });

  it("overpaid: the excess says how much", async () => {
    const created = (await c.create(m, USD_25)).body.data;
    await payConfirmedMatched(base, baseIndexer, optionOf(created, "BASE").address, 27_500_000n);
    expect(await request(created.id)).toMatchObject({
      status: "overpaid",
      amount_paid: "27.50",
      amount_excess: "2.50",
    });
  });

  it("a reorganisation that removes the payment takes it out of the request (and the balance): paid -> open", async () => {
    const created = (await c.create(m, USD_25)).body.data;
    const before = await available();
    const tx = await payConfirmedMatched(base, baseIndexer, optionOf(created, "BASE").address, 25_000_000n);
    expect((await request(created.id)).status).toBe("paid");
    expect((await available()) - before).toBe(24_740_000n);
    const height = await base.txHeight(tx);
    await base.reorg((await base.head()) - (height ?? 0) + 1, []);
    await base.mine(1);
    await catchUp(baseIndexer);
    await match();
    const r = await request(created.id);
    expect(r).toMatchObject({ status: "open", amount_paid: "0.00", amount_missing: "25.00", paid_at: null });
    expect(r.payments[0]).toMatchObject({ status: "REVERSED", counted: false });
    await expectEvents(created.id, "paid", "payment_reversed");
    expect((await available()) - before).toBe(0n);
    await expectLedgerClean();
  });

  it("late money: credited like any deposit, flagged late with its event; the request stays expired", async () => {
    const created = (await c.create(m, USD_25)).body.data;
    await api.db.query("UPDATE payment_requests SET expires_at = now(), rate_locked_until = now() WHERE id = $1", [
      created.id,
    ]);
    expect((await match()).expired).toBeGreaterThanOrEqual(1);
    const before = await available();
    await payConfirmedMatched(base, baseIndexer, optionOf(created, "BASE").address, 25_000_000n);
    const r = await request(created.id);
    expect(r).toMatchObject({ status: "expired", amount_paid: "0.00" });
    expect(r.payments).toEqual([expect.objectContaining({ status: "CONFIRMED", counted: false, flag: "late" })]);
    expect((await available()) - before).toBe(24_740_000n);
    await expectEvents(created.id, "expired", "late_payment");
    await match();
    expect(await eventTypes(created.id)).toHaveLength(3);
    await expectLedgerClean();
  });
});
