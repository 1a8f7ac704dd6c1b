import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { assignStatementLine, importBankStatement, listUnmatchedStatementLines } from "@mp/api";
import { silentLogger } from "@mp/core";
import {
  type AddressScreening,
  createListScreeningProvider,
  createSandboxBankingProvider,
  SANDBOX_PAYOUT_MAGIC,
} from "@mp/providers";
import { closeBankReturn, executeTransfersOnce, listBankReturns } from "@mp/transfers";
import { describe, expect, it } from "vitest";
import { transferTreasury } from "../../services/payments/src/transfer-treasury.ts";
import type { TestMerchant } from "../support/api-harness.ts";
import { useTempDir } from "../support/test-database.ts";
import { PAYEE, useTransfersApi } from "./transfers-support.ts";

const CSV_HEADER =
  "booking_date,account_number,direction,amount,currency,bank_reference,reference,counterparty,counterparty_account,counterparty_routing_number";
/** The customer's own bank account, as the statement names the payer: the sandbox bank pays it. */
const PAYER_ACCOUNT = "555566667777";
const PAYER_ROUTING = "021000021";

/**
 * Bank money under the merchant's `return` policy (issue 29 item 2, bank part): a late bank credit
 * to a transfer's BANK_TRANSFER intent, and the bank credits of a customer-funded transfer whose
 * payout failed (its crypto destination listed since the quote: refused for good at the send), go back by bank to the account their statement line names,
 * through BankingProvider.sendPayout keyed by the bank return's id, once; under `credit` they stay.
 */
describe("bank returns under the merchant's return policy", () => {
  const { t } = useTransfersApi();
  const listDir = useTempDir("mpbankret-");
  // The sandbox bank answers at once (a return's payout completes on its first call). With
  // `sanctions`, payout destinations are screened again at the send.
  const pass = (sanctions?: AddressScreening) =>
    executeTransfersOnce(t.api.db, transferTreasury, {
      ...(sanctions ? { sanctions } : {}),
      bank: {
        banking: createSandboxBankingProvider({ payoutDelayMs: 0 }),
        keyring: t.api.deps.encryption,
        returnCheckSeconds: 0,
      },
    });
  let lines = 0;

  /** The customer pays `amount` by bank naming its account; the line matched nothing and finance assigns it to the intent. */
  async function payIntentByBank(intentId: string, amount: string, payer = PAYER_ACCOUNT): Promise<{ lineId: string }> {
    lines++;
    const reference = `BNK-RET-${lines}-${Date.now()}`;
    const csv = `${CSV_HEADER}\n2026-11-28,999999999999,CREDIT,${amount},USD,${reference},,Pat Payer,${payer},${PAYER_ROUTING}\n`;
    await importBankStatement(t.api.db, {
      fileName: `${reference}.csv`,
      content: csv,
      operator: "finance",
      keyring: t.api.deps.encryption,
    });
    const line = (await listUnmatchedStatementLines(t.api.db)).find((l) => l.bankReference === reference);
    if (!line) throw new Error(`line ${reference} is not unmatched`);
    await assignStatementLine(t.api.db, { lineId: line.id, intentId, operator: "fin" });
    return { lineId: line.id };
  }

  async function merchantWith(policy: "credit" | "return") {
    const m = await t.api.merchant();
    await t.api.db.query("UPDATE merchants SET return_policy = $2 WHERE id = $1", [m.merchantId, policy]);
    return { m, customer: await t.bankCustomer(m) };
  }

  /** A bank-funded transfer of 100.00 (to `destination`), paid in full by the customer by bank. */
  async function fundedByBank(m: TestMerchant, customerId: string, destination?: object, payer?: string) {
    const quote = await t.quote(m, customerId, destination ? { destination } : {});
    const created = await t.transfer(m, quote.id);
    expect(created.status, created.text).toBe(201);
    const transferId = created.body.data.id as string;
    const intentId = (await t.call(m, `/v1/transfers/${transferId}/funding`)).body.data.intent.id as string;
    await payIntentByBank(intentId, "100.00", payer);
    expect((await t.call(m, `/v1/transfers/${transferId}`)).body.data.status).toBe("FUNDED");
    return { transferId, intentId };
  }

  const returnsOf = async (merchantId: string) =>
    (await listBankReturns(t.api.db)).filter((r) => r.merchantId === merchantId);
  const eventsOf = async (merchantId: string) =>
    (
      await t.api.db.query<{ object_id: string }>(
        "SELECT object_id FROM events WHERE merchant_id = $1 AND type = 'bank_deposit.returned'",
        [merchantId],
      )
    ).rows;
  /** Passes until `done` holds (each pass does what is due; the sandbox bank answers at once). */
  async function passUntil(done: () => Promise<boolean>, sanctions?: AddressScreening): Promise<void> {
    for (let i = 0; !(await done()); i++) {
      if (i > 20) throw new Error("the passes never got there");
      await pass(sanctions);
    }
  }

  it("credit (the default): a late bank credit stays in the merchant's available balance", async () => {
    const { m, customer } = await merchantWith("credit");
    const { intentId } = await fundedByBank(m, customer.customerId);
    const before = await t.balance(m);
    await payIntentByBank(intentId, "40.00");
    for (let i = 0; i < 3; i++) await pass();
    expect(await returnsOf(m.merchantId)).toEqual([]);
    expect(Number((await t.balance(m)).available) - Number(before.available)).toBeCloseTo(40, 6);
    await t.expectLedgerClean();
  });

  it("return: a late bank credit goes back by bank to its payer's account, once", async () => {
    const { m, customer } = await merchantWith("return");
    const { transferId, intentId } = await fundedByBank(m, customer.customerId);
    const before = await t.balance(m);
    const { lineId } = await payIntentByBank(intentId, "40.00");
    await passUntil(async () => (await returnsOf(m.merchantId))[0]?.state === "returned");

    const [late, ...others] = await returnsOf(m.merchantId);
    expect(others).toEqual([]);
    expect(late).toMatchObject({ origin: "late_funding", amount: "40.00", transferId, statementLineId: lineId });
    expect(late?.providerPayoutId).toMatch(/^po_sbx_/);
    // Taken from the merchant's available balance, paid out of the bank: the ledger balances.
    expect((await t.balance(m)).available).toBe(before.available);
    await t.expectLedgerClean();
    const entries = await t.api.db.query<{ kind: string }>(
      "SELECT kind FROM journal_entries WHERE reference = $1 ORDER BY seq",
      [late?.id],
    );
    expect(entries.rows.map((r) => r.kind)).toEqual(["bank_policy_return", "bank_return_paid"]);
    expect((await eventsOf(m.merchantId)).length).toBe(1);
    const funding = await t.call(m, `/v1/transfers/${transferId}/funding`);
    expect(funding.body.data.intent.flag.message).toMatch(/sent back to its payer by bank/);
    // On the transfer's returns (its answer checked against /openapi.json): by bank, the account not shown.
    const { returns } = (await t.call(m, `/v1/transfers/${transferId}`)).body.data;
    expect(returns).toEqual([
      {
        deposit_id: late?.bankDepositId,
        origin: "late_funding",
        state: "returned",
        amount: { asset: "USD", currency: "USD", network: "ACH", value: "40.00" },
        network_fee: { asset: "USD", currency: "USD", network: "ACH", value: "0.00" },
        destination: { type: "BANK_ACCOUNT", network: "ACH", address: null },
        reason: null,
        tx_hash: null,
        created_at: expect.any(String),
        returned_at: expect.any(String),
      },
    ]);

    // Replays and a restarted worker (a new provider instance): nothing twice.
    for (let i = 0; i < 3; i++) expect((await pass()).returns).toBe(0);
    expect(await returnsOf(m.merchantId)).toHaveLength(1);
    expect((await eventsOf(m.merchantId)).length).toBe(1);
    await t.expectLedgerClean();
  });

  it("return: a bank-funded transfer whose payout failed goes back to the customer's account", async () => {
    const { m, customer } = await merchantWith("return");
    const before = await t.balance(m);
    const { transferId } = await fundedByBank(m, customer.customerId);
    // Listed since the quote: the send is refused for good, the transfer FAILED, its holds released.
    const list = join(listDir, "sanctioned_addresses_ETH.txt");
    writeFileSync(list, `${PAYEE}\n`);
    const listed = await createListScreeningProvider({ path: list, sandbox: false, logger: silentLogger() });
    await passUntil(async () => (await returnsOf(m.merchantId))[0]?.state === "returned", listed);

    const transfer = (await t.call(m, `/v1/transfers/${transferId}`)).body.data;
    expect(transfer.status).toBe("FAILED");
    expect(transfer.failure_reason).toMatch(/bank payment was sent back to its payer/);
    const returns = await returnsOf(m.merchantId);
    expect(returns).toHaveLength(1);
    expect(returns[0]).toMatchObject({ origin: "failed_payout", state: "returned", amount: "100.00", transferId });
    // The customer's 100.00 came in and went back: the merchant has what it had.
    expect((await t.balance(m)).available).toBe(before.available);
    await t.expectLedgerClean();

    for (let i = 0; i < 3; i++) expect((await pass(listed)).returns).toBe(0);
    expect(await returnsOf(m.merchantId)).toHaveLength(1);
    await t.expectLedgerClean();
  });

  it("return, closed: the failed transfer's reason no longer says the customer's money went back", async () => {
    const { m, customer } = await merchantWith("return");
    const before = await t.balance(m);
    // The customer's bank refuses the return (the sandbox's refusing account).
    const { transferId } = await fundedByBank(
      m,
      customer.customerId,
      undefined,
      `55556666${SANDBOX_PAYOUT_MAGIC.failSuffix}`,
    );
    const list = join(listDir, "sanctioned_addresses_ETH.txt");
    writeFileSync(list, `${PAYEE}\n`);
    const listed = await createListScreeningProvider({ path: list, sandbox: false, logger: silentLogger() });
    await passUntil(async () => (await returnsOf(m.merchantId))[0]?.state === "failed", listed);
    const sentBack = (await t.call(m, `/v1/transfers/${transferId}`)).body.data;
    expect(sentBack.failure_reason).toMatch(/bank payment was sent back to its payer/);
    const returnId = (await returnsOf(m.merchantId))[0]?.id as string;
    await closeBankReturn(t.api.db, { returnId, operator: "ops", reason: "paid by cheque" });

    const transfer = (await t.call(m, `/v1/transfers/${transferId}`)).body.data;
    expect(transfer.status).toBe("FAILED");
    expect(transfer.failure_reason).not.toMatch(/sent back to its payer by the merchant's return policy/);
    expect(transfer.failure_reason).toMatch(
      /the customer's bank payment could not be sent back to its payer by bank: it is in the merchant's available balance \(bank return closed: paid by cheque\)$/,
    );
    expect(transfer.returns).toMatchObject([{ origin: "failed_payout", state: "closed" }]);
    // The customer's 100.00 is the merchant's again.
    expect(Number((await t.balance(m)).available) - Number(before.available)).toBeCloseTo(100, 6);
    for (let i = 0; i < 3; i++) await pass(listed);
    expect(await returnsOf(m.merchantId)).toHaveLength(1);
    await t.expectLedgerClean();
  });
});
