import { sendNative, tokenBalance, transferToken } from "@mp/test-nodes/evm";
import { reconcileChains, requestSend } from "@mp/treasury";
import { beforeAll, describe, expect, it } from "vitest";
import { createDepositMerchant, type DepositMerchant } from "../../packages/treasury/test/support/evm-deposits.ts";
import { useTreasuryHarness } from "../../packages/treasury/test/support/use-treasury.ts";
import { sendCheckOf } from "../../services/payments/src/chain-families.ts";
import { startEvmReconcileChain } from "./evm-reconcile-chain.ts";

const ETH = 10n ** 18n;

/**
 * Issue 27 finding 4, the indexer's side: a transaction of our own treasury that pays one of our
 * deposit addresses (an operator's `treasury send` there) is money arriving at that address like
 * any other, a deposit credited to the address's owner; only our own custody moves (a gas top-up, a
 * sweep) are never deposits (reconcile-evm-sweeps.test.ts). Before, every transaction whose hash was
 * a treasury attempt was dropped: the coins stayed in our custody, credited to nobody, and
 * `payments reconcile chains` found more on chain than it could explain.
 */
describe("a treasury send to a merchant's deposit address: credited to that merchant, reconciled", () => {
  const { t: database, h: c } = useTreasuryHarness(startEvmReconcileChain);
  let merchant: DepositMerchant;

  beforeAll(async () => {
    const db = database.db;
    merchant = await createDepositMerchant(db, 1);
    await sendNative(c.node, c.treasury, 10n * ETH);
    await transferToken(c.node, c.usdc, c.treasury, 1_000_000_000n);
    await c.settle();
    const address = merchant.addresses[0]?.address ?? "";
    const sends = [
      { asset: "USDC", amountRaw: 7_000_000n, key: "to-deposit-usdc" },
      { asset: "ETH", amountRaw: ETH / 100n, key: "to-deposit-eth" },
    ];
    for (const send of sends) {
      await requestSend(
        db,
        {
          chain: "BASE",
          asset: send.asset,
          to: address,
          amountRaw: send.amountRaw,
          purpose: "operator",
          idempotencyKey: send.key,
        },
        sendCheckOf("BASE"),
      );
    }
    const pipeline = c.pipeline();
    try {
      for (let i = 0; i < 40; i++) {
        await pipeline.tick("BASE");
        await c.node.mine(1);
        const { rows } = await db.query<{ state: string }>("SELECT state FROM treasury_sends");
        if (rows.every((r) => r.state === "confirmed")) break;
      }
    } finally {
      await pipeline.stop();
    }
    await c.settle();
  }, 180_000);

  it("records each payout as a confirmed deposit of the address's merchant, credited once", async () => {
    const db = database.db;
    expect(await tokenBalance(c.node, c.usdc, merchant.addresses[0]?.address ?? "")).toBe(7_000_000n);
    const deposits = await db.query<{ merchant_id: string; asset: string; amount_raw: string; status: string }>(
      `SELECT d.merchant_id, d.asset, d.amount_raw::text AS amount_raw, d.status FROM deposits d
        WHERE d.tx_hash IN (SELECT tx_hash FROM treasury_attempts) ORDER BY d.asset`,
    );
    expect(deposits.rows).toEqual([
      { merchant_id: merchant.merchantId, asset: "ETH", amount_raw: (ETH / 100n).toString(), status: "CONFIRMED" },
      { merchant_id: merchant.merchantId, asset: "USDC", amount_raw: "7000000", status: "CONFIRMED" },
    ]);
    const credits = await db.query(
      `SELECT 1 FROM journal_entries e JOIN deposits d ON d.id::text = e.reference
        WHERE e.kind = 'deposit_credit' AND d.merchant_id = $1`,
      [merchant.merchantId],
    );
    expect(credits.rowCount).toBe(2);
  });

  it("agrees with the chain to the unit: what left the treasury arrived at a deposit address of ours", async () => {
    const report = await reconcileChains(database.db, c.targets());
    expect(report.lines.map((l) => [l.asset, l.status, l.difference])).toEqual([
      ["ETH", "agrees", "0"],
      ["USDC", "agrees", "0"],
    ]);
    expect(report.lines.find((l) => l.asset === "USDC")?.breakdown).toMatchObject({
      sent: "7000000",
      deposits: "7000000",
      operator_float: "1000000000",
    });
  });
});
