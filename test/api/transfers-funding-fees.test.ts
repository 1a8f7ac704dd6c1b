import { createEvmAdapter } from "@mp/chain-evm";
import { type ChainConfig, resolveChainConfig } from "@mp/core";
import type { Indexer } from "@mp/indexer";
import { checkLedger, postFundingFeeRefund, releaseHold, unappliedFundingHoldId } from "@mp/ledger";
import { type AnvilNode, deployTestToken, sendNative, startAnvil, transferToken } from "@mp/test-nodes/evm";
import { applyFundingDeposits, executeTransfersOnce } from "@mp/transfers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { transferTreasury } from "../../services/payments/src/transfer-treasury.ts";
import { catchUp, newIndexer } from "../indexer/indexer-fixtures.ts";
import { CONFIRMATIONS } from "../indexer/test-chains.ts";
import type { TestMerchant } from "../support/api-harness.ts";
import { cryptoFundingMerchant, startTransfersApi, type TransfersApi } from "./transfers-support.ts";
import { nextKey } from "./verification-fixtures.ts";

/**
 * Issue 27 finding 3: fees follow the money's purpose. Only the part of a deposit to a transfer's
 * funding address that an open intent takes is free of the merchant's deposit fee; money after a
 * cancel, an excess, another asset pay it like any deposit. Until the executor has said what the
 * money is, it is not spendable (reserved), so no order of operations can take available below zero.
 */
describe("transfers: deposit fees on funding addresses follow the money's purpose", () => {
  let t: TransfersApi;
  let node: AnvilNode;
  let config: ChainConfig;
  let indexer: Indexer;
  let usdc: Awaited<ReturnType<typeof deployTestToken>>;
  let a: TestMerchant;
  let customerId: string;

  beforeAll(async () => {
    node = await startAnvil({ chainId: 8453 });
    usdc = await deployTestToken(node, { name: "USD Coin", symbol: "USDC", decimals: 6 });
    config = resolveChainConfig("BASE", {
      rpcUrl: node.url,
      confirmations: CONFIRMATIONS,
      pollIntervalMs: 50,
      batchSize: 50,
      tokens: [{ asset: "USDC", address: usdc.address, decimals: 6 }],
    });
    t = await startTransfersApi({ chains: { BASE: config } });
    indexer = newIndexer(t.api.db, { chain: "BASE", config, adapter: () => createEvmAdapter(config) });
    // 1.5 % + 0.025 USD per deposit.
    ({ merchant: a, customerId } = await cryptoFundingMerchant(t));
  }, 120_000);
  afterAll(async () => {
    await indexer?.stop();
    await t?.stop();
    await node?.stop();
  });

  /** A BASE USDC -> BASE USDC transfer paid by the customer: its id and funding address. */
  async function cryptoTransfer(sourceAmount: string) {
    const { transfer, address } = await t.cryptoTransfer(a, customerId, { source_amount: sourceAmount });
    return { id: transfer.id as string, address };
  }

  /** Mines `tx` deep enough and lets the indexer confirm it. */
  async function confirmed(tx: Promise<{ txHash: string }>): Promise<string> {
    const { txHash } = await tx;
    await node.mine(CONFIRMATIONS - 1);
    await catchUp(indexer);
    return txHash;
  }

  /** The deposit of `txHash` as GET /v1/deposits shows it. */
  async function depositOf(txHash: string) {
    const list = await t.call(a, "/v1/deposits?limit=200");
    const found = list.body.data.items.find((d: { tx_hash: string }) => d.tx_hash === txHash);
    expect(found, `deposit ${txHash}`).toBeDefined();
    return found as { status: string; amount_usd: string; fee_usd: string; net_amount_usd: string };
  }

  const statusOf = async (id: string) => (await t.call(a, `/v1/transfers/${id}`)).body.data.status;

  it("a canceled transfer's address is an ordinary deposit address: the whole payment pays the fee", async () => {
    const canceled = await cryptoTransfer("50");
    const cancel = await t.call(a, `/v1/transfers/${canceled.id}/cancel`, {
      method: "POST",
      idempotencyKey: nextKey("cancel"),
    });
    expect(cancel.status, cancel.text).toBe(200);
    const before = await t.balance(a);
    const tx = await confirmed(transferToken(node, usdc, canceled.address, 50_000_000n));
    expect(await applyFundingDeposits(t.api.db, 50)).toBe(1);
    // 50 * 1.5 % + 0.025 = 0.775.
    expect(await depositOf(tx)).toMatchObject({
      status: "CONFIRMED",
      amount_usd: "50.000000",
      fee_usd: "0.775000",
      net_amount_usd: "49.225000",
    });
    expect(await t.balance(a)).toEqual({ available: plus(before.available, 49_225_000n), reserved: before.reserved });
    await t.expectLedgerClean();
  });

  it("an over-payment: the part the intent takes is free, the excess alone pays the fee", async () => {
    const transfer = await cryptoTransfer("100");
    const before = await t.balance(a);
    const tx = await confirmed(transferToken(node, usdc, transfer.address, 110_000_000n));
    expect(await applyFundingDeposits(t.api.db, 50)).toBe(1);
    expect(await statusOf(transfer.id)).toBe("FUNDED");
    // The excess 10 pays 10 * 1.5 % + 0.025 = 0.175; the 100 applied pays nothing.
    expect(await depositOf(tx)).toMatchObject({ fee_usd: "0.175000", net_amount_usd: "109.825000" });
    expect(await t.balance(a)).toEqual({
      available: plus(before.available, 9_825_000n),
      reserved: plus(before.reserved, 100_000_000n),
    });

    // Exactly what is due: no fee at all.
    const exact = await cryptoTransfer("40");
    const exactTx = await confirmed(transferToken(node, usdc, exact.address, 40_000_000n));
    expect(await applyFundingDeposits(t.api.db, 50)).toBe(1);
    expect(await depositOf(exactTx)).toMatchObject({ fee_usd: "0.000000", net_amount_usd: "40.000000" });
    await t.expectLedgerClean();
  });

  it("another asset paid to a funding address pays the fee like any deposit", async () => {
    const transfer = await cryptoTransfer("20");
    const before = await t.balance(a);
    // 0.01 ETH at the sandbox's 3,200 USD = 32 USD: 32 * 1.5 % + 0.025 = 0.505.
    const tx = await confirmed(sendNative(node, transfer.address, 10n ** 16n));
    await applyFundingDeposits(t.api.db, 50);
    expect(await depositOf(tx)).toMatchObject({ amount_usd: "32.000000", fee_usd: "0.505000" });
    expect(await t.balance(a)).toEqual({ available: plus(before.available, 31_495_000n), reserved: before.reserved });
    expect(await statusOf(transfer.id)).toBe("AWAITING_MERCHANT_FUNDING");
    await t.expectLedgerClean();
  });

  it("until the executor applies it, a funding deposit is not spendable; a reorg takes back the fee with it", async () => {
    const canceled = await cryptoTransfer("30");
    await t.call(a, `/v1/transfers/${canceled.id}/cancel`, { method: "POST", idempotencyKey: nextKey("cancel") });
    const before = await t.balance(a);
    await confirmed(transferToken(node, usdc, canceled.address, 30_000_000n));
    // Credited by the indexer but not yet applied: reserved, never available.
    const waiting = await t.balance(a);
    expect(waiting.available).toBe(before.available);
    expect(BigInt(waiting.reserved.replace(".", ""))).toBeGreaterThan(BigInt(before.reserved.replace(".", "")));
    await t.expectLedgerClean();
    // Spending available down to (under a cent of) zero meanwhile cannot make the late payment's fee
    // overdraw it.
    const cents = before.available.slice(0, -4);
    const left = BigInt(before.available.replace(".", "")) - BigInt(`${cents.replace(".", "")}0000`);
    const spend = await t.quote(a, customerId, { source: { method: "BALANCE" }, source_amount: cents });
    const spent = await t.transfer(a, spend.id);
    expect(spent.status, spent.text).toBe(201);
    expect((await executeTransfersOnce(t.api.db, transferTreasury)).applied).toBe(1);
    // 30 * 1.5 % + 0.025 = 0.475: the late payment's net is available; nothing went below zero.
    expect((await t.balance(a)).available).toBe(plus("0.000000", left + 29_525_000n));
    await t.expectLedgerClean();

    // The deposit's block leaves the chain: its credit and its fee go back, the journal balanced.
    await node.reorg(CONFIRMATIONS, []);
    await catchUp(indexer);
    expect((await t.balance(a)).available).toBe(plus("0.000000", left));
    await t.expectLedgerClean();
  });

  it("a funding deposit whose block leaves the chain before it is applied: its reservation and credit both go back", async () => {
    const transfer = await cryptoTransfer("15");
    const before = await t.balance(a);
    await confirmed(transferToken(node, usdc, transfer.address, 15_000_000n));
    // Reserved, net of the fee the indexer took (15 * 1.5 % + 0.025 = 0.25).
    expect(await t.balance(a)).toEqual({ available: before.available, reserved: plus(before.reserved, 14_750_000n) });
    await t.expectLedgerClean();
    await node.reorg(CONFIRMATIONS, []);
    await catchUp(indexer);
    expect(await t.balance(a)).toEqual(before);
    expect(await applyFundingDeposits(t.api.db, 50)).toBe(0);
    expect(await statusOf(transfer.id)).toBe("AWAITING_MERCHANT_FUNDING");
    await t.expectLedgerClean();
  });

  it("ledger check names a funding deposit left unreserved before it is applied, or a late one given its fee back", async () => {
    const transfer = await cryptoTransfer("12");
    await t.call(a, `/v1/transfers/${transfer.id}/cancel`, { method: "POST", idempotencyKey: nextKey("cancel") });
    const tx = await confirmed(transferToken(node, usdc, transfer.address, 12_000_000n));
    const [deposit] = (
      await t.api.db.query<{ id: string }>("SELECT id FROM deposits WHERE tx_hash = $1", [tx.toLowerCase()])
    ).rows;
    if (!deposit) throw new Error("no deposit");
    // Spendable before the executor said what it is (the old order of operations).
    await t.api.db.tx((sql) =>
      releaseHold(sql, { holdId: unappliedFundingHoldId(deposit.id), merchantId: a.merchantId }),
    );
    expect((await checkLedger(t.api.db)).problems).toEqual([
      `deposit ${deposit.id} of merchant ${a.merchantId} to a funding address: confirmed and not applied, yet its net is not reserved (hold RELEASED)`,
    ]);
    expect(await applyFundingDeposits(t.api.db, 50)).toBe(1);
    await t.expectLedgerClean();

    // Late money given its fee back, as a funding deposit was before (the fee is 12 * 1.5 % + 0.025).
    const refund = await t.api.db.tx((sql) =>
      postFundingFeeRefund(sql, { depositId: deposit.id, merchantId: a.merchantId, refundUsdMicros: 205_000n }),
    );
    const { problems } = await checkLedger(t.api.db);
    expect(problems).toContain(
      `deposit ${deposit.id} of merchant ${a.merchantId}: came late, yet its fee was refunded`,
    );
    expect(problems).toContain(
      `entry ${refund.entryId} (funding_fee_refund ${deposit.id}) of merchant ${a.merchantId} is not the refund recorded on an applied credit of that deposit`,
    );
  });
});

/** A balance figure (decimal USD, 6 digits) plus `micros`, as the balance shows it. */
function plus(value: string, micros: bigint): string {
  const sum = BigInt(value.replace(".", "")) + micros;
  return `${sum / 1_000_000n}.${(sum % 1_000_000n).toString().padStart(6, "0")}`;
}
