import { randomUUID } from "node:crypto";
import { createLogger } from "@mp/core";
import { type DrainPass, type DrainReturnDeps, type DrainSettings, drainOnce } from "@mp/liquidation";
import { createSandboxBankingProvider, type RateProvider } from "@mp/providers";
import { expect } from "vitest";
import { confirmDeposits } from "../../packages/indexer/src/confirm-deposits.ts";
import type { TransfersApi, TransfersClient } from "../api/transfers-support.ts";
import { nextKey } from "../api/verification-fixtures.ts";
import type { ApiHarness, TestMerchant } from "../support/api-harness.ts";

/** A resource as answered (checked against /openapi.json by the client). */
// biome-ignore lint/suspicious/noExplicitAny: answers are read field by field, their schema checked by the client
export type Answer = { id: string; [field: string]: any };

/**
 * One pass of the drainer against the in-process API's database, as the worker runs it: the
 * transfers' spread and travel rule threshold, the product's fee (`settings` overrides any of them;
 * LIQUIDATION_FEE_* unset: no fee, a merchant's liquidation_fee_overrides row applies), the API's
 * rates unless `rates` is given; failed drains' money sent to a return_address only when `returns` is given.
 */
export function drainerOf(
  api: ApiHarness,
  { returns, ...settings }: Partial<DrainSettings> & { returns?: DrainReturnDeps } = {},
  rates?: RateProvider,
): () => Promise<DrainPass> {
  return () =>
    drainOnce({
      returns,
      db: api.db,
      keyring: api.deps.encryption,
      rates: rates ?? api.deps.rates,
      settings: {
        spreadBps: api.deps.transfers.spreadBps,
        feeFixedUsdMicros: 0n,
        feeBps: 0,
        travelRuleThresholdUsdMicros: api.deps.transfers.travelRuleThresholdUsdMicros,
        ...settings,
      },
    });
}

/** A liquidation address of `customerId` draining BASE USDC to `destination`, made through the API (201). */
export async function createLiquidationAddress(
  t: TransfersClient,
  merchant: TestMerchant,
  customerId: string,
  destination: unknown,
  returnAddress?: string,
): Promise<Answer> {
  const res = await t.call(merchant, "/v1/liquidation-addresses", {
    method: "POST",
    idempotencyKey: nextKey("liq"),
    json: {
      customer_id: customerId,
      network: "BASE",
      asset: "USDC",
      destination,
      ...(returnAddress ? { return_address: returnAddress } : {}),
    },
  });
  expect(res.status, res.text).toBe(201);
  return res.body.data as Answer;
}

/**
 * The in-process steps of a drain's life without chain nodes: the address made through the API, a
 * deposit to it as the indexer records it, the indexer's confirmation step on BASE, its drains read.
 */
export function liquidationSteps(t: TransfersApi, a: TestMerchant, customerId: string) {
  const logger = createLogger({ level: "silent" });
  return {
    /** An address draining BASE USDC to `destination` (and its money, when a drain cannot pay out, to `returnAddress`). */
    create: (destination: unknown, returnAddress?: string): Promise<Answer> =>
      createLiquidationAddress(t, a, customerId, destination, returnAddress),
    /** A deposit as the indexer records it (PENDING), of `micros` micro-USDC, to the address. */
    async deposit(address: { id: string }, micros: bigint): Promise<string> {
      const id = randomUUID();
      await t.api.db.query(
        `INSERT INTO deposits (id, merchant_id, wallet_id, destination_id, customer_id, chain, asset, to_address,
           tx_hash, position, block_height, block_hash, decimals, amount_raw, required_confirmations)
         SELECT $1::uuid, a.merchant_id, a.wallet_id, a.destination_id, a.customer_id, a.chain, a.asset, a.address,
                '0x' || md5($1::text), 'log:0', 10, '0xblock', 6, $3, 1
           FROM liquidation_addresses a WHERE a.id = $2`,
        [id, address.id, micros.toString()],
      );
      return id;
    },
    /** The indexer's confirmation step, as it runs on BASE (every deposit deep enough). */
    confirm: () =>
      confirmDeposits({
        db: t.api.db,
        chain: "BASE",
        head: 1_000_000,
        rates: t.api.deps.rates,
        logger,
        failpoint: () => {},
        fence: async () => {},
      }),
    async drains(addressId: string): Promise<Answer[]> {
      const res = await t.call(a, `/v1/liquidation-addresses/${addressId}/drains?limit=100`);
      expect(res.status, res.text).toBe(200);
      return res.body.data.items as Answer[];
    },
  };
}

/**
 * The transfer executor's bank: the sandbox bank, whose payouts complete `payoutDelayMs` after they
 * start on the clock `now` (which a test moves), checked for returns on every pass.
 */
export function sandboxPayoutBank(api: ApiHarness, payoutDelayMs: number, now: () => Date) {
  return {
    banking: createSandboxBankingProvider({ payoutDelayMs, now }),
    keyring: api.deps.encryption,
    returnCheckSeconds: 0,
  };
}

/** The amounts (smallest units, largest first) of the completed payouts of the drains of liquidation address `addressId`. */
async function completedPayouts(api: ApiHarness, addressId: string): Promise<string[]> {
  const { rows } = await api.db.query<{ amount: string }>(
    `SELECT p.amount::text AS amount FROM transfer_payouts p JOIN liquidation_drains ld ON ld.transfer_id = p.transfer_id
      WHERE ld.liquidation_address_id = $1 AND p.status = 'COMPLETED' ORDER BY p.amount DESC`,
    [addressId],
  );
  return rows.map((r) => r.amount);
}

/**
 * The drains of three deposits of 100, 25.50 and 10.123456 USDC (`depositIds`, in that order) to a
 * bank-bound address, all paid: source the deposit's USD (USDC at 1) in whole cents; fee 0.25 + 1%
 * rounded up to the cent; paid (source - fee) * 0.995 (the 50 bp spread), rounded down to the cent.
 * Their payouts completed, and what stays on the merchant's balance (taken `before` the deposits)
 * is the sub-cent remainder of 10.123456 only. Answers the drains by deposit id.
 */
export async function expectThreeBankDrainsPaid(
  t: TransfersApi,
  merchant: TestMerchant,
  paid: { addressId: string; drains: Answer[]; depositIds: readonly string[]; before: { available: string } },
): Promise<Map<string, Answer>> {
  const byDeposit = new Map(paid.drains.map((d) => [d.deposit_id as string, d]));
  const expected = [
    { source: "100.00", fee: "1.25", paid: "98.25" },
    { source: "25.50", fee: "0.51", paid: "24.86" },
    { source: "10.12", fee: "0.36", paid: "9.71" },
  ];
  expect(paid.depositIds).toHaveLength(expected.length);
  paid.depositIds.forEach((id, i) => {
    expect(byDeposit.get(id)).toMatchObject({
      state: "payment_processed",
      not_paid_reason: null,
      source_amount: { asset: "USD", value: expected[i]?.source },
      fee: { value: expected[i]?.fee },
      destination_amount: { asset: "USD", network: "ACH", value: expected[i]?.paid },
      rate: { value: "0.995" },
    });
  });
  expect(await completedPayouts(t.api, paid.addressId)).toEqual(["98250000", "24860000", "9710000"]);
  const after = await t.balance(merchant);
  expect(Number(after.available) - Number(paid.before.available)).toBeCloseTo(0.003456, 6);
  return byDeposit;
}
