import { join } from "node:path";
import { decimalToUnits, formatUsd, USD_DECIMALS } from "@mp/core";
import { type Database, openDatabase } from "@mp/db";
import { checkLedger } from "@mp/ledger";
import { SANDBOX_PAYOUT_MAGIC } from "@mp/providers";
import { tokenBalance } from "@mp/test-nodes/evm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { paidOnChain } from "../../packages/treasury/test/support/bitcoin-treasury.ts";
import { freshAddress } from "../../packages/treasury/test/support/evm-treasury.ts";
import { registerLedgerChecks } from "../../services/payments/src/ledger-checks.ts";
import { usBank } from "../api/transfers-bank-support.ts";
import {
  COMPLETED_JIT_STATUSES,
  expectBankFundingShape,
  expectFundingShape,
  type TransfersClient,
  transferStatuses,
  transfersClient,
} from "../api/transfers-support.ts";
import { nextKey } from "../api/verification-fixtures.ts";
import { runCli, startService } from "../cli/run-cli.ts";
import { eventually, type TestMerchant } from "../support/api-harness.ts";
import { stopProcess } from "./several-processes.ts";
import { createCliMerchant, remoteApi, transferPayouts } from "./transfer-chains.ts";
import { useTransferChains } from "./use-transfer-chains.ts";

const TIMEOUT_MS = 180_000;

/**
 * Issue 15's whole stories against the real process: `payments serve --role all` on BASE (anvil with
 * USDC), the Bitcoin test node and the Tron test node (USDT), its sandbox KYC and bank deciding
 * asynchronously, the signer paying from the treasury, its indexer confirming customers' deposits. Each figure is checked where it ends up: the chain, the balance, the ledger.
 */
describe("transfer stories through the service process and real chains", () => {
  const { database, dir, chains } = useTransferChains("mptransfers-");
  let service: Awaited<ReturnType<typeof startService>>;
  let env: Record<string, string | undefined>;
  let db: Database;
  let t: TransfersClient;
  let a: TestMerchant;
  let b: TestMerchant;
  let customer: { customerId: string; virtualAccountId: string };

  beforeAll(async () => {
    env = {
      DATA_DIR: join(dir, "data"),
      DATABASE_URL: process.env.DATABASE_URL ? database.connectionString : undefined,
      CHAINS_CONFIG: chains.chainsConfig(dir),
      TREASURY_MNEMONIC: chains.mnemonic,
      RATE_LIMIT_PER_MINUTE: "100000",
    };
    service = await startService(["--role", "all"], { ...env, PORT: "0" });
    // Joins the service's database (its embedded PGlite too) to read what the API does not show.
    db = (await openDatabase({ databaseUrl: env.DATABASE_URL, dataDir: env.DATA_DIR as string, poolSize: 2 })).db;
    // The signer recorded the treasury's Bitcoin address before the API listened: the indexer sees this.
    chains.fundBitcoinTreasury(100_000_000n);
    [a, b] = await Promise.all([createCliMerchant(env, "Stories A"), createCliMerchant(env, "Stories B")]);
    t = await transfersClient(remoteApi(service.url));
    customer = await t.bankCustomer(a);
  }, TIMEOUT_MS);
  afterAll(async () => {
    await db?.close();
    await stopProcess(service?.child);
  });

  const funding = async (id: string) => (await t.call(a, `/v1/transfers/${id}/funding`)).body.data;
  /** The transfer of `quoteId`, created waiting for its funding, and its funding answer. */
  const awaitingFunding = async (quoteId: string) => {
    const created = await t.transfer(a, quoteId);
    expect(created.status, created.text).toBe(201);
    const transfer = created.body.data;
    expect(transfer.status).toBe("AWAITING_MERCHANT_FUNDING");
    return { transfer, f: await funding(transfer.id) };
  };
  const transferOf = async (m: TestMerchant, id: string) => (await t.call(m, `/v1/transfers/${id}`)).body.data;
  /** The transfer once it is `final`, having been only in `passing` meanwhile. */
  const reaches = (id: string, final: string, passing = ["FUNDED", "PROCESSING"]) =>
    eventually(
      async () => {
        const transfer = await transferOf(a, id);
        expect([...passing, final], JSON.stringify(transfer)).toContain(transfer.status);
        return transfer.status === final ? transfer : undefined;
      },
      90_000,
      250,
    );
  const completed = (id: string) => reaches(id, "COMPLETED");
  const history = (id: string) => transferStatuses(db, id);
  const eventTypes = async (id: string) =>
    ((await t.call(a, `/v1/events?object_id=${id}&limit=200`)).body.data.items as Array<{ type: string }>)
      .map((e) => e.type)
      .reverse();
  // The operator's `payments ledger check` once (the first story); the same check in process after
  // the others, a CLI start costing tens of seconds on a loaded machine.
  const expectLedgerChecked = async (through: "cli" | "process" = "process") => {
    if (through === "cli") {
      const check = await runCli(["ledger", "check"], env);
      expect(check.code, check.stdout + check.stderr).toBe(0);
    } else {
      registerLedgerChecks(); // the transfers' checks too, as `payments ledger check` runs them
      expect(await checkLedger(db)).toMatchObject({ ok: true, problems: [] });
    }
  };

  /** One story of the file: `body`, then the ledger checked (expectLedgerChecked `through`). */
  const story = (title: string, body: () => Promise<void>, through: "cli" | "process" = "process") =>
    it(
      title,
      async () => {
        await body();
        await expectLedgerChecked(through);
      },
      TIMEOUT_MS,
    );

  story(
    "bank USD -> USDC on BASE: quote, transfer, funding intent (spec 2.9), the bank credit with the reference, paid on chain, COMPLETED",
    async () => {
      const payee = freshAddress();
      const quote = await t.quote(a, customer.customerId, {
        destination: { type: "CRYPTO_ADDRESS", asset: "USDC", network: "BASE", address: payee },
        source_amount: undefined,
        destination_amount: "50",
      });
      // 50 / 0.995 rounded up to the cent; no fee by default.
      expect(quote.source_amount).toEqual({ asset: "USD", currency: "USD", network: "ACH", value: "50.26" });
      const { transfer, f } = await awaitingFunding(quote.id);
      expectBankFundingShape(f);
      // The funding economics are the quote's, the payer the customer, the intent waiting for the money.
      expect(f.transfer_id).toBe(transfer.id);
      expect(f.funding).toMatchObject({
        mode: "TRANSFER_JIT",
        payer: { type: "CUSTOMER", customer_id: customer.customerId },
        rate: quote.rate,
        required_amount: quote.source_amount,
        fee: quote.fee,
        expires_at: transfer.expires_at,
      });
      expect(f.intent).toMatchObject({ status: "PENDING", required_amount: quote.source_amount, flag: null });
      expect(Date.parse(f.funding.expires_at)).toBeGreaterThan(Date.now());
      const { reference } = f.intent.bank_transfer;

      const before = await t.balance(a);
      const credited = await t.credit(a, customer.virtualAccountId, "50.26", reference);
      expect(credited.status, credited.text).toBe(201);
      const done = await completed(transfer.id);
      expect(done.destination_amount).toEqual(quote.destination_amount);

      // On chain: the payee holds exactly the quoted USDC, paid from the treasury in one transaction.
      expect(await tokenBalance(chains.base.node, chains.base.usdc, payee)).toBe(50_000000n);
      const [payout, ...more] = await transferPayouts(db, transfer.id);
      expect(more).toEqual([]);
      expect(payout).toMatchObject({ chain: "BASE", asset: "USDC", to_address: payee, amount_raw: "50000000" });
      const receipt = await chains.base.node.publicClient.getTransactionReceipt({
        hash: payout?.tx_hash as `0x${string}`,
      });
      expect(receipt.status).toBe("success");
      expect(receipt.from.toLowerCase()).toBe(chains.base.treasury.toLowerCase());

      expect((await funding(transfer.id)).intent).toMatchObject({ status: "FUNDED", flag: null });
      // The customer's money came and went: nothing of it stays with the merchant.
      expect(await t.balance(a)).toEqual(before);
      // One credit of the whole amount: funded at once (funding_received marks partial credits).
      expect(await eventTypes(transfer.id)).toEqual([
        "transfer.created",
        "transfer.funded",
        "transfer.processing",
        "transfer.completed",
      ]);
      expect(await history(transfer.id)).toEqual(COMPLETED_JIT_STATUSES);
    },
    "cli",
  );

  story(
    "BALANCE -> BTC: the merchant's available USD is held at once, the treasury pays BTC on the Bitcoin node, the hold settles",
    async () => {
      // Available USD the way merchants get it: a bank credit without a transfer reference.
      expect((await t.credit(a, customer.virtualAccountId, "300")).status).toBe(201);
      const before = await t.balance(a);
      const payee = chains.bitcoin.newAddress();
      const quote = await t.quote(a, customer.customerId, {
        source: { method: "BALANCE" },
        destination: { type: "CRYPTO_ADDRESS", asset: "BTC", network: "BITCOIN", address: payee },
        source_amount: "100.00",
      });
      expect(quote.source).toEqual({ method: "BALANCE", asset: "USD", network: "LEDGER" });
      const created = await t.transfer(a, quote.id);
      expect(created.status, created.text).toBe(201);
      expect(created.body.data).toMatchObject({ status: "FUNDED", funding_mode: "BALANCE" });
      const held = await t.balance(a);
      expect(micros(held.available)).toBe(micros(before.available) - 100_000_000n);
      expect(micros(held.reserved)).toBe(micros(before.reserved) + 100_000_000n);

      const done = await completed(created.body.data.id);
      const sats = decimalToUnits(done.destination_amount.value, 8) as bigint;
      expect(done.destination_amount).toMatchObject({ asset: "BTC", network: "BITCOIN" });
      const [payout, ...more] = await transferPayouts(db, done.id);
      expect(more).toEqual([]);
      expect(payout).toMatchObject({ chain: "BITCOIN", asset: "BTC", to_address: payee, amount_raw: sats.toString() });
      expect(await paidOnChain(chains.bitcoin, payout?.tx_hash as string, payee)).toBe(sats);

      // The hold settled: the 100 USD left reserved and never came back to available.
      expect(await t.balance(a)).toEqual({ available: held.available, reserved: before.reserved });
      expect(await history(done.id)).toEqual(COMPLETED_JIT_STATUSES);
    },
  );

  story(
    "the same bank deposit twice is counted once; 20 identical POST /v1/transfers make one transfer; another merchant gets 404",
    async () => {
      const quote = await t.quote(a, customer.customerId, { source_amount: "20.00" });
      const key = nextKey("transfer");
      const answers = await Promise.all(Array.from({ length: 20 }, () => t.transfer(a, quote.id, key)));
      for (const r of answers) expect(r.status, r.text).toBe(201);
      expect(new Set(answers.map((r) => r.text)).size).toBe(1);
      const id = answers[0]?.body.data.id as string;
      const rows = await db.query("SELECT id FROM transfers WHERE quote_id = $1", [quote.id]);
      expect(rows.rowCount).toBe(1);

      for (const path of [`/v1/transfers/${id}`, `/v1/transfers/${id}/funding`]) {
        expect((await t.call(b, path)).status, path).toBe(404);
      }
      const foreignCancel = await t.cancel(b, id);
      expect(foreignCancel.status).toBe(404);

      // Half the amount, the same bank deposit delivered twice (its idempotency key): still half.
      const { reference } = (await funding(id)).intent.bank_transfer;
      const before = await t.balance(a);
      const creditKey = nextKey("credit");
      const [first, second] = await Promise.all([
        t.credit(a, customer.virtualAccountId, "10.00", reference, creditKey),
        t.credit(a, customer.virtualAccountId, "10.00", reference, creditKey),
      ]);
      expect([first.status, second.status]).toEqual([201, 201]);
      expect(second.text).toBe(first.text);
      const f = await funding(id);
      expect(f.transfer_status).toBe("AWAITING_MERCHANT_FUNDING");
      expect(f.intent.flag).toEqual({
        code: "AMOUNT_MISMATCH",
        message: "Received 10.00 USD of 20.00 USD; 10.00 USD still due",
      });
      expect(await t.balance(a)).toEqual({
        available: before.available,
        reserved: formatUsd(micros(before.reserved) + 10_000_000n),
      });
      // The rest funds it, and it is paid.
      await t.credit(a, customer.virtualAccountId, "10.00", reference);
      await completed(id);
      expect(await t.balance(a)).toEqual(before);
      expect(await eventTypes(id)).toEqual([
        "transfer.created",
        "transfer.funding_received",
        "transfer.funded",
        "transfer.processing",
        "transfer.completed",
      ]);
    },
  );

  story("cancel racing the funding credit: exactly one wins, and the money is exactly once somewhere", async () => {
    const start = await t.balance(a);
    const funded: string[] = [];
    let canceled = 0;
    for (let round = 0; round < 4; round += 1) {
      const before = await t.balance(a);
      const transfer = (await t.transfer(a, (await t.quote(a, customer.customerId, { source_amount: "5.00" })).id)).body
        .data;
      const { reference } = (await funding(transfer.id)).intent.bank_transfer;
      const [cancel, credit] = await Promise.all([
        t.cancel(a, transfer.id),
        t.credit(a, customer.virtualAccountId, "5.00", reference),
      ]);
      expect(credit.status, credit.text).toBe(201);
      const after = await funding(transfer.id);
      // Payouts of earlier rounds settle meanwhile (reserved falls); available moves only here.
      const available = (await t.balance(a)).available;
      if (cancel.status === 200) {
        // Cancel first: the credit came late and is the merchant's, flagged.
        canceled += 1;
        expect(after.transfer_status).toBe("CANCELED");
        expect(after.intent.flag.code).toBe("LATE_PAYMENT");
        expect(available).toBe(formatUsd(micros(before.available) + 5_000_000n));
      } else {
        // The credit first: funded, the cancel refused.
        expect(cancel.status, cancel.text).toBe(409);
        expect(["FUNDED", "PROCESSING", "COMPLETED"]).toContain(after.transfer_status);
        expect(available).toBe(before.available);
        funded.push(transfer.id);
      }
    }
    // Every funded one paid out once, every canceled one's credit in available, nothing still held.
    for (const id of funded) {
      await completed(id);
      expect(await transferPayouts(db, id)).toHaveLength(1);
    }
    expect(await t.balance(a)).toEqual({
      available: formatUsd(micros(start.available) + BigInt(canceled) * 5_000_000n),
      reserved: start.reserved,
    });
  });

  story(
    "issue 27: merchant A's 100-sat BTC payout is refused at quote (or ends FAILED, its hold released) while merchant B's USDC payout completes within a minute",
    async () => {
      const bCustomer = await t.bankCustomer(b);
      expect((await t.credit(b, bCustomer.virtualAccountId, "40")).status).toBe(201);
      expect((await t.credit(a, customer.virtualAccountId, "10")).status).toBe(201);
      const aBefore = await t.balance(a);
      const bBefore = await t.balance(b);
      // A's hostile payout first: 100 sat of BTC from its balance (about 0.07 USD).
      const tiny = await t.requestQuote(a, customer.customerId, {
        source: { method: "BALANCE" },
        destination: { type: "CRYPTO_ADDRESS", asset: "BTC", network: "BITCOIN", address: chains.bitcoin.newAddress() },
        destination_amount: "0.000001",
      });
      let tinyTransfer: string | undefined;
      if (tiny.status === 201) {
        const created = await t.transfer(a, tiny.body.data.id);
        tinyTransfer = created.body.data?.id;
      } else {
        expect(tiny.status, tiny.text).toBe(422);
        expect(tiny.body).toMatchObject({ error: "amount_below_minimum" });
        expect(tiny.body.message).toContain("minimum of 0.00000546 BTC on BITCOIN");
      }

      // B's ordinary payout right after: paid on chain within a minute.
      const payee = freshAddress();
      const quote = await t.quote(b, bCustomer.customerId, {
        source: { method: "BALANCE" },
        destination: { type: "CRYPTO_ADDRESS", asset: "USDC", network: "BASE", address: payee },
        source_amount: "25.00",
      });
      const created = await t.transfer(b, quote.id);
      expect(created.status, created.text).toBe(201);
      const started = Date.now();
      const done = await eventually(
        async () => {
          const transfer = await transferOf(b, created.body.data.id);
          return transfer.status === "COMPLETED" ? transfer : undefined;
        },
        60_000,
        250,
      );
      expect(Date.now() - started).toBeLessThan(60_000);
      const paid = decimalToUnits(done.destination_amount.value, 6) as bigint;
      expect(await tokenBalance(chains.base.node, chains.base.usdc, payee)).toBe(paid);
      expect(micros((await t.balance(b)).available)).toBe(micros(bBefore.available) - 25_000_000n);

      // A's tiny one, if it was made at all, ended FAILED with its hold back in available.
      if (tinyTransfer) {
        const ended = await eventually(async () => {
          const transfer = await transferOf(a, tinyTransfer as string);
          return transfer.status === "FAILED" ? transfer : undefined;
        }, 60_000);
        expect(ended.failure_reason).toBeTruthy();
      }
      expect(await t.balance(a)).toEqual(aBefore);
    },
  );

  /**
   * A USDT on TRON -> US bank transfer of 30 USDT to `accountNumber`, the customer paying the
   * intent's address from the Tron test node's faucet: the transfer once it is `final`.
   */
  async function tronToBank(accountNumber: string, final: "COMPLETED" | "FAILED") {
    const quote = await t.quote(a, customer.customerId, {
      source: { method: "CRYPTO_DEPOSIT", asset: "USDT", network: "TRON" },
      destination: usBank(accountNumber),
      source_amount: "30",
    });
    expect(quote.source).toEqual({ method: "CRYPTO_DEPOSIT", asset: "USDT", network: "TRON" });
    expect(quote.destination_amount).toMatchObject({ asset: "USD", currency: "USD" });
    const { transfer, f } = await awaitingFunding(quote.id);
    expectFundingShape(f);
    expect(f.funding).toMatchObject({
      mode: "TRANSFER_JIT",
      method: "CRYPTO_DEPOSIT",
      payer: { type: "CUSTOMER", customer_id: customer.customerId },
      required_amount: { asset: "USDT", currency: "USDT", network: "TRON", value: "30" },
    });
    expect(f.intent).toMatchObject({ status: "PENDING", method: "CRYPTO_DEPOSIT", bank_transfer: null, flag: null });
    expect(f.intent.crypto_deposit).toEqual({
      address: expect.any(String),
      asset: "USDT",
      memo: "",
      network: "TRON",
      reference: expect.stringMatching(/^TRF[A-Z2-9]{12}$/),
    });
    const { address } = f.intent.crypto_deposit;

    const before = await t.balance(a);
    const txID = chains.tron.transferToken(address, 30_000_000n);
    const done = await reaches(transfer.id, final, ["AWAITING_MERCHANT_FUNDING", "FUNDED", "PROCESSING"]);
    expect(done.destination_amount).toEqual(quote.destination_amount);
    expect(chains.tron.transaction(txID)).toMatchObject({ failed: false });
    expect(chains.tron.tokenBalance(address)).toBe(30_000_000n);
    expect((await funding(transfer.id)).intent).toMatchObject({ status: "FUNDED", flag: null });
    // The deposit funded the intent once, all of it applied.
    const credits = await db.query<{ outcome: string; applied_amount: string; excess_amount: string }>(
      `SELECT c.outcome, c.applied_amount::text, c.excess_amount::text FROM funding_intent_credits c
         JOIN funding_intents i ON i.id = c.intent_id WHERE i.transfer_id = $1`,
      [transfer.id],
    );
    expect(credits.rows).toEqual([{ outcome: "APPLIED", applied_amount: "30000000", excess_amount: "0" }]);
    const payouts = await db.query<{ status: string; amount: string; provider: string }>(
      "SELECT status, amount::text AS amount, provider FROM transfer_payouts WHERE transfer_id = $1",
      [transfer.id],
    );
    expect(payouts.rows).toEqual([
      {
        status: final,
        amount: String(micros(done.destination_amount.value)),
        provider: "sandbox",
      },
    ]);
    expect(await history(transfer.id)).toEqual(["AWAITING_MERCHANT_FUNDING", "FUNDED", "PROCESSING", final]);
    expect(await eventTypes(transfer.id)).toEqual([
      "transfer.created",
      "transfer.funded",
      "transfer.processing",
      `transfer.${final.toLowerCase()}`,
    ]);
    return { transfer: done, before, after: await t.balance(a) };
  }

  story(
    "USDT on TRON -> US bank: the intent's fresh Tron address (spec 2.9), the customer's USDT confirmed by the indexer, FUNDED, the sandbox bank pays, COMPLETED",
    async () => {
      const { before, after } = await tronToBank("000123456789", "COMPLETED");
      // The deposit was held for the transfer and paid out: nothing stays reserved or lands in available.
      expect(after).toEqual(before);
    },
  );

  story(
    `USDT on TRON -> a bank account that refuses (ending ${SANDBOX_PAYOUT_MAGIC.failSuffix}): FAILED, the deposit released to the merchant's available balance`,
    async () => {
      const { before, after } = await tronToBank(`98765${SANDBOX_PAYOUT_MAGIC.failSuffix}`, "FAILED");
      expect(after).toEqual({
        available: formatUsd(micros(before.available) + 30_000_000n),
        reserved: before.reserved,
      });
    },
  );
});

/** A decimal USD string of the API as micro-dollars. */
function micros(value: string): bigint {
  return decimalToUnits(value, USD_DECIMALS) as bigint;
}
