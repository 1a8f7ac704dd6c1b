import { randomBytes, randomUUID } from "node:crypto";
import { checkLedger, postDepositCredits, returnHeldDeposit } from "@mp/ledger";
import { returnFeeRaw, sendDepositReturn, sendDepositReturnTo } from "@mp/transfers";
import { describe, expect, it } from "vitest";
import { transferTreasury } from "../../services/payments/src/transfer-treasury.ts";
import { insertMerchantWithCustomer } from "../support/db-fixtures.ts";
import { useTestDatabase } from "../support/test-database.ts";

/** A regtest P2WPKH address (BIP-173's test vector): a payer's refund address. */
const REFUND = "bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080";

/**
 * The rules of a deposit's return without a chain (the send is only queued here; the anvil tests
 * follow one to the payer): a Bitcoin return waits for the operator's refund address, an EVM one
 * goes to the sender only, the network fee is the setting at the deposit's rate, and asking again
 * queues nothing more.
 */
describe("deposit returns: destination, fee and once per deposit", () => {
  const t = useTestDatabase();

  /** A confirmed deposit held and then refused by an operator (returns_payable owes its gross). */
  async function returnedDeposit(
    chain: string,
    asset: string,
    decimals: number,
    amountRaw: bigint,
    usdMicros: bigint,
    from: string | null,
    refused = true,
  ) {
    return t.db.tx(async (c) => {
      const { merchantId, customerId } = await insertMerchantWithCustomer(c, "Returns test");
      const walletId = randomUUID();
      const destinationId = randomUUID();
      await c.query(
        "INSERT INTO wallets (id, merchant_id, customer_id, label, derivation_index) VALUES ($1, $2, $3, 'main', 0)",
        [walletId, merchantId, customerId],
      );
      // A fresh receive address per deposit (destinations are unique per chain and address).
      const address =
        chain === "BITCOIN" ? `bcrt1q${randomBytes(20).toString("hex")}` : `0x${randomBytes(20).toString("hex")}`;
      await c.query(
        `INSERT INTO destinations (id, wallet_id, merchant_id, chain, address, address_key, derivation_path)
         VALUES ($1, $2, $3, $4, $5, lower($5), 'm/0')`,
        [destinationId, walletId, merchantId, chain, address],
      );
      const id = randomUUID();
      await c.query(
        `INSERT INTO deposits (id, merchant_id, wallet_id, destination_id, customer_id, chain, asset, to_address, from_address,
           tx_hash, position, block_height, block_hash, decimals, amount_raw, required_confirmations, status, usd_rate,
           amount_usd_micros, fee_usd_micros, net_amount_usd_micros, confirmed_at, hold_status, held_reason)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, md5(random()::text), 'vout:0', 1, '0xblock', $10, $11, 2, 'CONFIRMED',
           '1', $12, 0, $12, now(), 'HELD', 'customer_rejected')`,
        [
          id,
          merchantId,
          walletId,
          destinationId,
          customerId,
          chain,
          asset,
          address,
          from,
          decimals,
          amountRaw.toString(),
          usdMicros.toString(),
        ],
      );
      const [posted] = await postDepositCredits(c, [
        { depositId: id, merchantId, amountUsdMicros: usdMicros, feeUsdMicros: 0n, held: true },
      ]);
      await c.query("UPDATE deposits SET credit_entry_id = $2 WHERE id = $1", [id, posted?.entryId]);
      if (refused) await returnHeldDeposit(c, { depositId: id, reason: "KYC rejected" });
      return id;
    });
  }

  const ask = (depositId: string, to?: string) =>
    t.db.tx((c) =>
      sendDepositReturn(c, { treasury: transferTreasury }, { depositId, to, networkFeeUsdMicros: 1_000_000n }),
    );
  const returnSends = async () =>
    (
      await t.db.query<{ to_address: string; amount_raw: string; idempotency_key: string }>(
        "SELECT to_address, amount_raw::text, idempotency_key FROM treasury_sends WHERE purpose = 'return' ORDER BY created_at",
      )
    ).rows;

  it("the fee is the setting at the deposit's rate, rounded up", () => {
    // 0.01 BTC worth 650 USD: 1 USD is 1,538.46... sat, rounded up.
    expect(returnFeeRaw({ amountRaw: 1_000_000n, amountUsdMicros: 650_000_000n, feeUsdMicros: 1_000_000n })).toBe(
      1_539n,
    );
    expect(returnFeeRaw({ amountRaw: 25_000_000n, amountUsdMicros: 25_000_000n, feeUsdMicros: 1_000_000n })).toBe(
      1_000_000n,
    );
    expect(returnFeeRaw({ amountRaw: 5n, amountUsdMicros: 0n, feeUsdMicros: 1_000_000n })).toBe(5n);
    expect(returnFeeRaw({ amountRaw: 5n, amountUsdMicros: 10n, feeUsdMicros: 0n })).toBe(0n);
  });

  it("Bitcoin: payable until the operator gives a refund address, then sent there once, less the fee", async () => {
    const depositId = await returnedDeposit("BITCOIN", "BTC", 8, 1_000_000n, 650_000_000n, null);
    const waiting = await ask(depositId);
    expect(waiting).toMatchObject({ state: "payable", to: null, amountRaw: null, feeRaw: 1_539n });
    expect(waiting.reason).toContain("give the refund address (--to)");
    expect(await returnSends()).toEqual([]);

    const sent = await ask(depositId, REFUND);
    expect(sent).toMatchObject({
      state: "sending",
      to: REFUND,
      amountRaw: 998_461n,
      sendKey: `deposit-return:${depositId}`,
    });
    // Again, with or without the address: the same return, nothing more queued.
    expect(await ask(depositId, REFUND)).toMatchObject({ state: "sending", sendKey: sent.sendKey });
    expect(await ask(depositId)).toMatchObject({ state: "sending", sendKey: sent.sendKey });
    expect(await returnSends()).toEqual([
      { to_address: REFUND, amount_raw: "998461", idempotency_key: `deposit-return:${depositId}` },
    ]);
    expect((await checkLedger(t.db)).problems).toEqual([]);
  });

  it("EVM: to the deposit's sender only; a deposit with no recorded sender waits for a refund address", async () => {
    const sender = "0x00000000000000000000000000000000000000aa";
    const depositId = await returnedDeposit("BASE", "USDC", 6, 5_000_000n, 5_000_000n, sender);
    await expect(ask(depositId, "0x00000000000000000000000000000000000000bb")).rejects.toThrow(
      "goes back to the deposit's sender",
    );
    expect(await ask(depositId)).toMatchObject({
      state: "sending",
      to: sender,
      amountRaw: 4_000_000n,
      feeRaw: 1_000_000n,
    });

    const anonymous = await returnedDeposit("BASE", "USDC", 6, 5_000_000n, 5_000_000n, null);
    // No recorded sender: it waits for the operator's refund address, as a Bitcoin deposit does.
    expect(await ask(anonymous)).toMatchObject({
      state: "payable",
      reason: "this BASE payment names no one payer: give the refund address (--to)",
    });
    expect((await checkLedger(t.db)).problems).toEqual([]);
  });

  it("a refund address the payer named in advance (a liquidation address's return_address) wins over the sender, once", async () => {
    const sender = "0x00000000000000000000000000000000000000aa";
    const named = "0x00000000000000000000000000000000000000cc";
    const depositId = await returnedDeposit("BASE", "USDC", 6, 5_000_000n, 5_000_000n, sender);
    const sendTo = () =>
      t.db.tx((c) =>
        sendDepositReturnTo(
          c,
          { treasury: transferTreasury },
          { depositId, returnAddress: named, networkFeeUsdMicros: 1_000_000n },
        ),
      );
    const sent = await sendTo();
    expect(sent).toMatchObject({ state: "sending", to: named, amountRaw: 4_000_000n, feeRaw: 1_000_000n });
    expect(await sendTo()).toMatchObject({ state: "sending", sendKey: sent.sendKey });
    const sends = (await returnSends()).filter((s) => s.idempotency_key === `deposit-return:${depositId}`);
    expect(sends).toEqual([
      { to_address: named, amount_raw: "4000000", idempotency_key: `deposit-return:${depositId}` },
    ]);
    expect((await checkLedger(t.db)).problems).toEqual([]);
  });

  it("refuses a deposit that is not owed to its payer: still held, or unknown", async () => {
    const held = await returnedDeposit(
      "BASE",
      "USDC",
      6,
      3_000_000n,
      3_000_000n,
      "0x00000000000000000000000000000000000000aa",
      false,
    );
    await expect(ask(held)).rejects.toThrow("is not owed to its payer (status CONFIRMED, hold HELD)");
    await expect(ask(randomUUID())).rejects.toThrow("Deposit");
  });
});
