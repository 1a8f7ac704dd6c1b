import { fundingWallets } from "@mp/api";
import type { Indexer } from "@mp/indexer";
import { createSandboxRateProvider, type RateProvider } from "@mp/providers";
import { applyFundingDeposits, executeTransfersOnce, MAX_START_ATTEMPTS } from "@mp/transfers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isChainAddress } from "../../services/payments/src/chain-families.ts";
import { transferTreasury } from "../../services/payments/src/transfer-treasury.ts";
import { catchUp, newIndexer } from "../indexer/indexer-fixtures.ts";
import { CONFIRMATIONS, startEvmChain, startTronChain, type TestChain } from "../indexer/test-chains.ts";
import type { TestMerchant } from "../support/api-harness.ts";
import {
  cryptoFundingMerchant,
  expectFundingShape,
  PAYEE,
  startTransfersApi,
  type TransfersApi,
  USDC_ON_BASE,
} from "./transfers-support.ts";
import { createCustomer, nextKey } from "./verification-fixtures.ts";

/**
 * CRYPTO_DEPOSIT transfers (payer CUSTOMER, just in time): the intent's address is a fresh one of
 * ours, watched by the real indexer on a real anvil (BASE, USDC) or the repo's Tron test node; the
 * indexer's confirmed deposits there fund the intent through the transfer executor's pass.
 */
/** The sandbox's rates, but USDC's at `usdcRate` when set: a depeg between a quote and a confirmation. */
let usdcRate: string | undefined;
const sandboxRates = createSandboxRateProvider();
const indexerRates: RateProvider = {
  name: "sandbox, USDC as the test sets it",
  listRates: async () =>
    (await sandboxRates.listRates()).map((r) => (r.fromCurrency === "USDC" && usdcRate ? { ...r, rate: usdcRate } : r)),
  rateFor: async (asset) => {
    const rate = await sandboxRates.rateFor(asset);
    return asset === "USDC" && usdcRate ? { ...rate, rate: usdcRate } : rate;
  },
};

describe("transfers: crypto funding just in time", () => {
  let t: TransfersApi;
  let base: TestChain;
  let tron: TestChain;
  let baseIndexer: Indexer;
  let tronIndexer: Indexer;
  let a: TestMerchant;
  let b: TestMerchant;
  let customerId: string;

  beforeAll(async () => {
    [base, tron] = await Promise.all([startEvmChain(), startTronChain()]);
    t = await startTransfersApi({ chains: { BASE: base.config, TRON: tron.config } });
    baseIndexer = newIndexer(t.api.db, base, { rates: indexerRates });
    tronIndexer = newIndexer(t.api.db, tron);
    // Its deposit fee: transfers-funding-fees.test.ts.
    [{ merchant: a, customerId }, b] = await Promise.all([cryptoFundingMerchant(t), t.api.merchant()]);
  }, 120_000);
  afterAll(async () => {
    await baseIndexer?.stop();
    await tronIndexer?.stop();
    await t?.stop();
    await Promise.all([base?.close(), tron?.close()]);
  });

  /** A BASE USDC -> BASE USDC transfer of `source_amount` paid by the Tier-1 customer, and its funding address. */
  const cryptoTransfer = (sourceAmount: string, m: TestMerchant = a, customer = customerId) =>
    t.cryptoTransfer(m, customer, { source_amount: sourceAmount });

  /** Pays `micros` of test USDC to `address`, mines it deep enough, and lets the indexer confirm it. */
  async function payConfirmed(address: string, micros: bigint): Promise<string> {
    const tx = await base.pay(address, micros);
    await base.mine(CONFIRMATIONS - 1);
    await catchUp(baseIndexer);
    return tx;
  }

  /** `usdc` USDC paid and confirmed to the address of a transfer of `m` canceled before: its available balance. */
  async function paidAfterCancel(usdc: string, m: TestMerchant, customer: string): Promise<void> {
    const { transfer, address } = await cryptoTransfer(usdc, m, customer);
    await t.cancel(m, transfer.id);
    await payConfirmed(address, BigInt(usdc) * 1_000_000n);
    expect(await applyFundingDeposits(t.api.db, 50)).toBe(1);
  }

  const intentOf = async (transferId: string) =>
    (await t.call(a, `/v1/transfers/${transferId}/funding`)).body.data.intent;
  const statusOf = async (transferId: string) => (await t.call(a, `/v1/transfers/${transferId}`)).body.data.status;
  const credits = async (transferId: string) =>
    (
      await t.api.db.query<{ outcome: string; applied_amount: string; excess_amount: string }>(
        `SELECT c.outcome, c.applied_amount::text, c.excess_amount::text FROM funding_intent_credits c
           JOIN funding_intents i ON i.id = c.intent_id WHERE i.transfer_id = $1 ORDER BY c.created_at`,
        [transferId],
      )
    ).rows;

  it("quotes CRYPTO_DEPOSIT sources and shows spec 2.9's crypto_deposit exactly: a fresh address of ours per intent", async () => {
    const quote = await t.quote(a, customerId, {
      source: USDC_ON_BASE,
      source_amount: undefined,
      destination_amount: "50",
    });
    expect(quote.source).toEqual({ method: "CRYPTO_DEPOSIT", asset: "USDC", network: "BASE" });
    expect(quote.destination_amount).toEqual({ asset: "USDC", currency: "USDC", network: "BASE", value: "50" });
    expect(quote.rate).toMatchObject({ base_currency: "USDC", quote_currency: "USDC" });

    const one = await cryptoTransfer("100");
    const two = await cryptoTransfer("100");
    const f = one.funding;
    expectFundingShape(f);
    expect(f.funding).toMatchObject({
      mode: "TRANSFER_JIT",
      method: "CRYPTO_DEPOSIT",
      payer: { type: "CUSTOMER", customer_id: customerId },
      required_amount: { asset: "USDC", currency: "USDC", network: "BASE", value: "100" },
      fee: { asset: "USDC", currency: "USDC", network: "BASE" },
    });
    expect(f.intent).toMatchObject({ status: "PENDING", method: "CRYPTO_DEPOSIT", bank_transfer: null, flag: null });
    expect(f.intent.crypto_deposit).toEqual({
      address: one.address,
      asset: "USDC",
      memo: "",
      network: "BASE",
      reference: expect.stringMatching(/^TRF[A-Z2-9]{12}$/),
    });
    expect(Object.keys(f.intent.crypto_deposit).sort()).toEqual(["address", "asset", "memo", "network", "reference"]);
    expect(isChainAddress("BASE", one.address, "mainnet")).toBe(true);
    expect(two.address).not.toBe(one.address);
    // Ours, watched like a wallet's, but not one of the merchant's customer wallets.
    const destinations = await t.api.db.query<{ purpose: string; derivation_index: number }>(
      `SELECT w.purpose, w.derivation_index FROM destinations d JOIN wallets w ON w.id = d.wallet_id
        WHERE d.chain = 'BASE' AND d.address = ANY($1::text[]) ORDER BY w.derivation_index`,
      [[one.address, two.address]],
    );
    expect(destinations.rows.map((r) => r.purpose)).toEqual(["TRANSFER_FUNDING", "TRANSFER_FUNDING"]);
    expect(new Set(destinations.rows.map((r) => r.derivation_index)).size).toBe(2);
    const wallets = await t.call(a, "/v1/wallets?limit=200");
    expect(JSON.stringify(wallets.body.data.items)).not.toContain(one.address);

    // USDT on TRON: a Tron address of ours.
    const tronQuote = await t.quote(a, customerId, {
      source: { method: "CRYPTO_DEPOSIT", asset: "USDT", network: "TRON" },
      source_amount: "20",
    });
    const tronTransfer = (await t.transfer(a, tronQuote.id)).body.data;
    const tronIntent = await intentOf(tronTransfer.id);
    expect(tronIntent.crypto_deposit).toMatchObject({ asset: "USDT", network: "TRON", memo: "" });
    expect(isChainAddress("TRON", tronIntent.crypto_deposit.address, "mainnet")).toBe(true);

    // KYC: an unverified customer cannot quote crypto funding.
    const unverified = await createCustomer(t.api, a);
    const refused = await t.call(a, "/v1/quotes", {
      method: "POST",
      idempotencyKey: nextKey("q"),
      json: {
        customer_id: unverified,
        source: USDC_ON_BASE,
        destination: { type: "CRYPTO_ADDRESS", asset: "USDC", network: "BASE", address: PAYEE },
        source_amount: "10",
      },
    });
    expect(refused.status).toBe(422);

    // Another merchant's transfer is not found.
    expect((await t.call(b, `/v1/transfers/${one.transfer.id}`)).status).toBe(404);
    expect((await t.call(b, `/v1/transfers/${one.transfer.id}/funding`)).status).toBe(404);
  });

  it("no address at once (a Solana pool still filling): PENDING without instructions, provisioned by the executor", async () => {
    const slots = t.api.deps.walletSlots;
    t.api.deps.walletSlots = {
      reserve: () => Promise.reject(new Error("the address pool is empty")),
    } as unknown as typeof slots;
    const quote = await t.quote(a, customerId, { source: USDC_ON_BASE, source_amount: "10" });
    const created = await t.transfer(a, quote.id).finally(() => {
      t.api.deps.walletSlots = slots;
    });
    expect(created.status, created.text).toBe(201);
    let intent = await intentOf(created.body.data.id);
    expect(intent).toMatchObject({ status: "PENDING", crypto_deposit: null, bank_transfer: null });
    expect(
      await executeTransfersOnce(t.api.db, transferTreasury, { fundingWallets: fundingWallets(slots) }),
    ).toMatchObject({
      provisioned: 1,
    });
    intent = await intentOf(created.body.data.id);
    expect(intent.crypto_deposit).toMatchObject({ asset: "USDC", network: "BASE", memo: "" });
    expect(
      await executeTransfersOnce(t.api.db, transferTreasury, { fundingWallets: fundingWallets(slots) }),
    ).toMatchObject({
      provisioned: 0,
    });
  });

  it("funds on TRON: the indexer's confirmed USDT deposit to the intent's address", async () => {
    const quote = await t.quote(a, customerId, {
      source: { method: "CRYPTO_DEPOSIT", asset: "USDT", network: "TRON" },
      source_amount: "30",
    });
    const transfer = (await t.transfer(a, quote.id)).body.data;
    const { address } = (await intentOf(transfer.id)).crypto_deposit;
    await tron.pay(address, 30_000_000n);
    await tron.mine(CONFIRMATIONS - 1);
    await catchUp(tronIndexer);
    expect(await applyFundingDeposits(t.api.db, 50)).toBe(1);
    expect(await statusOf(transfer.id)).toBe("FUNDED");
    await t.expectLedgerClean();
  });

  it("under, then over: adds up like bank credits; the excess goes to available; the deposit is credited once", async () => {
    const before = await t.balance(a);
    const { transfer, address } = await cryptoTransfer("100");
    await payConfirmed(address, 60_000_000n);
    expect(await applyFundingDeposits(t.api.db, 50)).toBe(1);
    let intent = await intentOf(transfer.id);
    expect(intent.status).toBe("PENDING");
    expect(intent.flag).toEqual({
      code: "AMOUNT_MISMATCH",
      message: "Received 60 USDC of 100 USDC; 40 USDC still due",
    });
    expect(await t.balance(a)).toEqual({ available: before.available, reserved: plus(before.reserved, 60_000_000n) });

    await payConfirmed(address, 50_000_000n);
    // Two passes at once: the deposit is applied once.
    const passes = await Promise.all([applyFundingDeposits(t.api.db, 50), applyFundingDeposits(t.api.db, 50)]);
    expect(passes[0] + passes[1]).toBe(1);
    intent = await intentOf(transfer.id);
    expect(intent.status).toBe("FUNDED");
    expect(intent.flag.code).toBe("AMOUNT_MISMATCH");
    expect(intent.flag.message).toContain("the excess 10 USDC was added to the merchant's available balance");
    expect(await statusOf(transfer.id)).toBe("FUNDED");
    expect(await credits(transfer.id)).toEqual([
      { outcome: "APPLIED", applied_amount: "60000000", excess_amount: "0" },
      { outcome: "APPLIED", applied_amount: "40000000", excess_amount: "10000000" },
    ]);
    // One deposit_credit per deposit: 110 credited, 100 held free of the deposit fee; the excess 10
    // pays it (10 * 1.5 % + 0.025 = 0.175).
    const after = await t.balance(a);
    expect(after).toEqual({
      available: plus(before.available, 9_825_000n),
      reserved: plus(before.reserved, 100_000_000n),
    });

    // The same transaction seen again (the indexer rescans its blocks): still counted once.
    await baseIndexer.stop();
    await t.api.db.query("UPDATE chain_cursors SET indexed_height = indexed_height - $1 WHERE chain = 'BASE'", [
      CONFIRMATIONS + 2,
    ]);
    await t.api.db.query(
      "DELETE FROM chain_blocks WHERE chain = 'BASE' AND height > (SELECT indexed_height FROM chain_cursors WHERE chain = 'BASE')",
    );
    baseIndexer = newIndexer(t.api.db, base, { rates: indexerRates });
    await catchUp(baseIndexer);
    expect(await applyFundingDeposits(t.api.db, 50)).toBe(0);
    expect(await credits(transfer.id)).toHaveLength(2);
    expect(await t.balance(a)).toEqual(after);

    // The executor pays it out.
    expect((await executeTransfersOnce(t.api.db, transferTreasury)).started).toBeGreaterThanOrEqual(1);
    expect(await statusOf(transfer.id)).toBe("PROCESSING");
    await t.expectLedgerClean();
  });

  it("worth less at confirmation than the quote needs (issue 27): short, flagged, never paid out until a top-up covers the USD due", async () => {
    const before = await t.balance(a);
    const { transfer, address } = await cryptoTransfer("100");
    // Quoted at 1 USD per USDC; by the deposit's confirmation USDC is worth 0.97.
    usdcRate = "0.97";
    try {
      await payConfirmed(address, 100_000_000n);
      await executeTransfersOnce(t.api.db, transferTreasury);
      expect(await intentOf(transfer.id)).toMatchObject({
        status: "PENDING",
        flag: {
          code: "AMOUNT_MISMATCH",
          message:
            "Received 100 USDC worth 97.000000 USD at the rates of their confirmations; the transfer needs 100.000000 USD: 3.000000 USD still due",
        },
      });
      expect(await statusOf(transfer.id)).toBe("AWAITING_MERCHANT_FUNDING");
      const sends = await t.api.db.query("SELECT 1 FROM treasury_sends WHERE idempotency_key = $1", [transfer.id]);
      expect(sends.rowCount).toBe(0);
      expect(await t.balance(a)).toEqual({ available: before.available, reserved: plus(before.reserved, 97_000_000n) });

      // The payer tops up 5 USDC (worth 4.85): what covers the 3 USD due is applied, the rest is available.
      await payConfirmed(address, 5_000_000n);
      await executeTransfersOnce(t.api.db, transferTreasury);
      expect(await credits(transfer.id)).toEqual([
        { outcome: "APPLIED", applied_amount: "100000000", excess_amount: "0" },
        { outcome: "APPLIED", applied_amount: "3092784", excess_amount: "1907216" },
      ]);
      expect((await intentOf(transfer.id)).status).toBe("FUNDED");
      expect(await statusOf(transfer.id)).toBe("PROCESSING");
      // The excess, worth 1.85, pays the deposit fee: 1.85 * 1.5 % + 0.025 = 0.05275.
      expect(await t.balance(a)).toEqual({
        available: plus(before.available, 1_797_250n),
        reserved: plus(before.reserved, 100_000_000n),
      });
    } finally {
      usdcRate = undefined;
    }
    await t.expectLedgerClean();
  });

  it("late: a deposit after expiry, or to a funded intent, goes to available, flagged, with an event", async () => {
    const saved = t.api.deps.transfers;
    t.api.deps.transfers = { ...saved, fundingTtlSeconds: 1 };
    const expiring = await cryptoTransfer("25").finally(() => {
      t.api.deps.transfers = saved;
    });
    await new Promise((r) => setTimeout(r, 1_200));
    const before = await t.balance(a);
    await payConfirmed(expiring.address, 25_000_000n);
    const pass = await executeTransfersOnce(t.api.db, transferTreasury);
    expect(pass.applied).toBe(1);
    expect(pass.expired).toBeGreaterThanOrEqual(1);
    expect(await statusOf(expiring.transfer.id)).toBe("EXPIRED");
    const intent = await intentOf(expiring.transfer.id);
    expect(intent.status).toBe("EXPIRED");
    expect(intent.flag.code).toBe("LATE_PAYMENT");
    expect(await credits(expiring.transfer.id)).toEqual([
      { outcome: "LATE", applied_amount: "0", excess_amount: "25000000" },
    ]);
    // Late money is an ordinary deposit: 25 * 1.5 % + 0.025 = 0.4 of fee.
    expect(await t.balance(a)).toEqual({ available: plus(before.available, 24_600_000n), reserved: before.reserved });
    const events = await t.api.db.query<{ type: string }>("SELECT type FROM events WHERE object_id = $1 ORDER BY seq", [
      expiring.transfer.id,
    ]);
    expect(events.rows.map((e) => e.type)).toEqual(["transfer.created", "transfer.expired", "transfer.late_funding"]);

    // A second payment to an intent already funded.
    const funded = await cryptoTransfer("5");
    await payConfirmed(funded.address, 5_000_000n);
    expect(await applyFundingDeposits(t.api.db, 50)).toBe(1);
    await payConfirmed(funded.address, 1_000_000n);
    expect(await applyFundingDeposits(t.api.db, 50)).toBe(1);
    expect((await intentOf(funded.transfer.id)).flag.code).toBe("LATE_PAYMENT");
    expect((await credits(funded.transfer.id)).map((c) => c.outcome)).toEqual(["APPLIED", "LATE"]);
    await t.expectLedgerClean();
  });

  it("reorg: a funding deposit that leaves the chain stops counting before execution; the journal stays balanced", async () => {
    // Partly funded, then reorged: the intent is owed the amount again.
    const partial = await cryptoTransfer("100");
    const before = await t.balance(a);
    await payConfirmed(partial.address, 60_000_000n);
    expect(await applyFundingDeposits(t.api.db, 50)).toBe(1);
    await base.reorg(CONFIRMATIONS, []);
    await catchUp(baseIndexer);
    expect(await executeTransfersOnce(t.api.db, transferTreasury)).toMatchObject({ unfunded: 1 });
    let intent = await intentOf(partial.transfer.id);
    expect(intent).toMatchObject({ status: "PENDING", flag: { code: "FUNDING_REVERSED" } });
    expect(await t.balance(a)).toEqual(before);

    // Paid in full now: funded by the new deposit only, and paid out settling only its hold.
    await payConfirmed(partial.address, 100_000_000n);
    expect(await executeTransfersOnce(t.api.db, transferTreasury)).toMatchObject({ applied: 1, started: 1 });
    intent = await intentOf(partial.transfer.id);
    expect(intent).toMatchObject({ status: "FUNDED", flag: null });
    const [send] = (
      await t.api.db.query<{ id: string }>("SELECT id FROM treasury_sends WHERE idempotency_key = $1", [
        partial.transfer.id,
      ])
    ).rows;
    await t.api.db.query("UPDATE treasury_sends SET state = 'confirmed', confirmed_at = now() WHERE id = $1", [
      send?.id,
    ]);
    expect(await executeTransfersOnce(t.api.db, transferTreasury)).toMatchObject({ finished: 1 });
    expect(await statusOf(partial.transfer.id)).toBe("COMPLETED");
    expect((await t.balance(a)).reserved).toBe(before.reserved);

    // Fully funded, then reorged before the executor ran: never paid out, FAILED, holds released.
    const full = await cryptoTransfer("40");
    const beforeFull = await t.balance(a);
    await payConfirmed(full.address, 40_000_000n);
    expect(await applyFundingDeposits(t.api.db, 50)).toBe(1);
    expect(await statusOf(full.transfer.id)).toBe("FUNDED");
    await base.reorg(CONFIRMATIONS, []);
    await catchUp(baseIndexer);
    expect(await executeTransfersOnce(t.api.db, transferTreasury)).toMatchObject({ unfunded: 1 });
    expect(await statusOf(full.transfer.id)).toBe("FAILED");
    expect((await intentOf(full.transfer.id)).flag.code).toBe("FUNDING_REVERSED");
    const sends = await t.api.db.query("SELECT 1 FROM treasury_sends WHERE idempotency_key = $1", [full.transfer.id]);
    expect(sends.rowCount).toBe(0);
    expect(await t.balance(a)).toEqual(beforeFull);
    const events = await t.api.db.query<{ type: string }>("SELECT type FROM events WHERE object_id = $1", [
      full.transfer.id,
    ]);
    expect(events.rows.map((e) => e.type)).toContain("transfer.funding_reversed");
    await t.expectLedgerClean();
  });

  it("a funding credit arriving while available is below zero (a reversal) still funds: the hold is exactly what arrived", async () => {
    const c = await t.api.merchant();
    const bank = await t.bankCustomer(c);
    // 50 USDC arrive late on a canceled transfer's address: the merchant's available balance.
    await paidAfterCancel("50", c, bank.customerId);
    expect(await t.balance(c)).toEqual({ available: "50.000000", reserved: "0.000000" });
    // The merchant reserves it for a BALANCE transfer, then the deposit's block leaves the chain.
    const spend = await t.quote(c, bank.customerId, { source: { method: "BALANCE" }, source_amount: "50" });
    expect((await t.transfer(c, spend.id)).body.data.status).toBe("FUNDED");
    await base.reorg(CONFIRMATIONS, []);
    await catchUp(baseIndexer);
    expect(await t.balance(c)).toEqual({ available: "-50.000000", reserved: "50.000000" });

    // A customer's bank payment of 100 for a transfer: funded, exactly 100 held.
    const bankTransfer = (await t.transfer(c, (await t.quote(c, bank.customerId)).id)).body.data;
    const { reference } = (await t.call(c, `/v1/transfers/${bankTransfer.id}/funding`)).body.data.intent.bank_transfer;
    const credited = await t.credit(c, bank.virtualAccountId, "100", reference);
    expect(credited.status, credited.text).toBe(201);
    expect((await t.call(c, `/v1/transfers/${bankTransfer.id}`)).body.data.status).toBe("FUNDED");
    expect(await t.balance(c)).toEqual({ available: "-50.000000", reserved: "150.000000" });
    await t.expectLedgerClean();
  });

  it("a merchant whose available a reorg took below zero (issue 27): its confirmed payout completes, its new one waits then FAILS, another merchant's completes", async () => {
    const [d, e] = await Promise.all([t.api.merchant(), t.api.merchant()]);
    const dBank = await t.bankCustomer(d);
    const eBank = await t.bankCustomer(e);
    await t.credit(d, dBank.virtualAccountId, "100");
    await t.credit(e, eBank.virtualAccountId, "100");
    const balanceTransfer = async (m: TestMerchant, customer: string, amount: string) => {
      const quote = await t.quote(m, customer, { source: { method: "BALANCE" }, source_amount: amount });
      const created = await t.transfer(m, quote.id);
      expect(created.body.data.status, created.text).toBe("FUNDED");
      return created.body.data.id as string;
    };
    // d's payout first, then e's: both sent, both confirmed by the chain (as the pipeline records it).
    const paid = await balanceTransfer(d, dBank.customerId, "30");
    const other = await balanceTransfer(e, eBank.customerId, "20");
    await executeTransfersOnce(t.api.db, transferTreasury);
    await t.api.db.query(
      "UPDATE treasury_sends SET state = 'confirmed', confirmed_at = now() WHERE idempotency_key = ANY($1::text[])",
      [[paid, other]],
    );
    // Meanwhile 200 USDC arrive on a canceled transfer's address of d (available), d spends 250 on a
    // new payout, and the deposit's block leaves the chain: d's available is -180.
    await paidAfterCancel("200", d, dBank.customerId);
    const waiting = await balanceTransfer(d, dBank.customerId, "250");
    await base.reorg(CONFIRMATIONS, []);
    await catchUp(baseIndexer);
    expect(await t.balance(d)).toEqual({ available: "-180.000000", reserved: "280.000000" });

    await executeTransfersOnce(t.api.db, transferTreasury);
    // The money of the confirmed payouts has left: both COMPLETED, whatever d's balance.
    expect((await t.call(d, `/v1/transfers/${paid}`)).body.data.status).toBe("COMPLETED");
    expect((await t.call(e, `/v1/transfers/${other}`)).body.data.status).toBe("COMPLETED");
    // d's new payout does not start while its available is below zero: it waits, recorded.
    expect((await t.call(d, `/v1/transfers/${waiting}`)).body.data.status).toBe("FUNDED");
    const retry = await t.api.db.query<{ execution_attempts: number; last_error: string }>(
      "SELECT execution_attempts, last_error FROM transfers WHERE id = $1",
      [waiting],
    );
    expect(retry.rows[0]).toMatchObject({ execution_attempts: 1, last_error: expect.stringMatching(/below zero/) });
    const sends = await t.api.db.query("SELECT 1 FROM treasury_sends WHERE idempotency_key = $1", [waiting]);
    expect(sends.rowCount).toBe(0);

    // Past the bound: FAILED, its 250 released into the gap.
    await t.api.db.query("UPDATE transfers SET execution_attempts = $2, next_attempt_at = now() WHERE id = $1", [
      waiting,
      MAX_START_ATTEMPTS - 1,
    ]);
    await executeTransfersOnce(t.api.db, transferTreasury);
    const failed = (await t.call(d, `/v1/transfers/${waiting}`)).body.data;
    expect(failed.status).toBe("FAILED");
    expect(failed.failure_reason).toMatch(/below zero/);
    expect(await t.balance(d)).toEqual({ available: "70.000000", reserved: "0.000000" });
    await t.expectLedgerClean();
  });
});

/** A balance figure (decimal USD, 6 digits) plus `micros`, as the balance shows it. */
function plus(value: string, micros: bigint): string {
  const sum = BigInt(value.replace(".", "")) + micros;
  return `${sum / 1_000_000n}.${(sum % 1_000_000n).toString().padStart(6, "0")}`;
}
