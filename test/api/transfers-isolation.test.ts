import { createTreasuryKeys } from "@mp/custody";
import { createSandboxBankingProvider } from "@mp/providers";
import { executeTransfersOnce, MAX_START_ATTEMPTS } from "@mp/transfers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { KEY_SCHEMES } from "../../services/payments/src/chain-families.ts";
import { transferTreasury } from "../../services/payments/src/transfer-treasury.ts";
import type { TestMerchant } from "../support/api-harness.ts";
import { chainsOnNoNode } from "./chains-on-no-node.ts";
import { usBank } from "./transfers-bank-support.ts";
import { PAYEE, startTransfersApi, type TransfersApi } from "./transfers-support.ts";
import { nextKey } from "./verification-fixtures.ts";

/** A Solana address (the wrapped SOL mint's: any valid public key will do as a payee here). */
const SOL_PAYEE = "So11111111111111111111111111111111111111112";

/** A regtest Bitcoin address that is not the treasury's (its own mnemonic). */
const BTC_PAYEE = createTreasuryKeys("legal winner thank year wave sausage worth useful legal winner thank yellow", {
  bitcoinNetwork: "regtest",
  schemes: KEY_SCHEMES,
}).key("bitcoin").address;

/**
 * Runs `body` while inserts into `table` whose `column` is `value` fail (a database error the executor
 * must survive), then removes the fault.
 */
async function refusingInserts(
  t: TransfersApi,
  fault: { table: string; column: string; value: string },
  body: () => Promise<void>,
): Promise<void> {
  const name = `refuse_${fault.table}`;
  await t.api.db.query(
    `CREATE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS $$
     BEGIN
       IF NEW.${fault.column}::text = '${fault.value}' THEN RAISE EXCEPTION 'injected fault for %', NEW.${fault.column}; END IF;
       RETURN NEW;
     END $$`,
  );
  await t.api.db.query(
    `CREATE TRIGGER ${name} BEFORE INSERT ON ${fault.table} FOR EACH ROW EXECUTE FUNCTION ${name}()`,
  );
  try {
    await body();
  } finally {
    await t.api.db.query(`DROP TRIGGER ${name} ON ${fault.table}`);
    await t.api.db.query(`DROP FUNCTION ${name}()`);
  }
}

/**
 * Issue 27, finding 2: one transfer the executor cannot move never aborts its pass nor holds up
 * another merchant's. The signer's pipeline is not running: a test ends a send the way the pipeline
 * records it (treasury_sends.state), as transfers-execution.test.ts does.
 */
describe("transfers: each transfer isolated in the executor", () => {
  let t: TransfersApi;
  let a: TestMerchant;
  let b: TestMerchant;
  const customers = new Map<string, { customerId: string; virtualAccountId: string }>();

  beforeAll(async () => {
    t = await startTransfersApi({ chains: chainsOnNoNode(["BASE", "BITCOIN", "SOLANA"]) });
    [a, b] = await Promise.all([t.api.merchant(), t.api.merchant()]);
    for (const m of [a, b]) {
      const customer = await t.bankCustomer(m);
      customers.set(m.merchantId, customer);
      expect((await t.credit(m, customer.virtualAccountId, "500")).status).toBe(201);
    }
  }, 120_000);
  afterAll(() => t?.stop());

  const customerOf = (m: TestMerchant) => customers.get(m.merchantId)?.customerId as string;
  const transferOf = async (m: TestMerchant, id: string) => (await t.call(m, `/v1/transfers/${id}`)).body.data;
  /** A FUNDED BALANCE transfer of `m` paying `destination`. */
  const balanceTransfer = async (m: TestMerchant, destination: Record<string, unknown>, amount: string) => {
    const quote = await t.quote(m, customerOf(m), {
      source: { method: "BALANCE" },
      destination,
      source_amount: amount,
    });
    const created = await t.transfer(m, quote.id);
    expect(created.status, created.text).toBe(201);
    return created.body.data as { id: string; quote_id: string; status: string };
  };
  const usdcTo = { type: "CRYPTO_ADDRESS", asset: "USDC", network: "BASE", address: PAYEE };
  const sendOf = async (transferId: string) =>
    (
      await t.api.db.query<{ id: string; state: string }>(
        "SELECT id, state FROM treasury_sends WHERE idempotency_key = $1 AND purpose = 'transfer'",
        [transferId],
      )
    ).rows;
  const confirmSend = (transferId: string) =>
    t.api.db.query("UPDATE treasury_sends SET state = 'confirmed', confirmed_at = now() WHERE idempotency_key = $1", [
      transferId,
    ]);
  const retryState = async (transferId: string) =>
    (
      await t.api.db.query<{ execution_attempts: number; due_in: number; last_error: string | null }>(
        `SELECT execution_attempts, extract(epoch FROM next_attempt_at - now())::float8 AS due_in, last_error
           FROM transfers WHERE id = $1`,
        [transferId],
      )
    ).rows[0];

  it("refuses at quote time a crypto amount below its chain's minimum: 422 amount_below_minimum naming it, nothing stored", async () => {
    const quotes = async () =>
      Number((await t.api.db.query("SELECT count(*)::int AS n FROM transfer_quotes")).rows[0]?.n);
    const before = await quotes();
    const refused = async (over: Record<string, unknown>, message: RegExp) => {
      const res = await t.call(a, "/v1/quotes", {
        method: "POST",
        idempotencyKey: nextKey("quote"),
        json: { customer_id: customerOf(a), source: { method: "BALANCE" }, ...over },
      });
      expect(res.status, res.text).toBe(422);
      expect(res.body.error).toBe("amount_below_minimum");
      expect(res.body.message).toMatch(message);
    };
    const btc = { type: "CRYPTO_ADDRESS", asset: "BTC", network: "BITCOIN", address: BTC_PAYEE };
    // 100 sat asked for, or what 0.07 USD buys (about 107 sat at the sandbox's 65,000 USD).
    await refused(
      { destination: btc, destination_amount: "0.000001" },
      /destination_amount: 0\.000001 BTC is below the minimum of 0\.00000546 BTC on BITCOIN \(the dust limit/,
    );
    await refused({ destination: btc, source_amount: "0.07" }, /minimum of 0\.00000546 BTC on BITCOIN/);
    const sol = { type: "CRYPTO_ADDRESS", asset: "SOL", network: "SOLANA", address: SOL_PAYEE };
    await refused(
      { destination: sol, destination_amount: "0.0005" },
      /minimum of 0\.00089088 SOL on SOLANA \(the rent-exempt minimum/,
    );
    await refused({ destination: usdcTo, destination_amount: "0.005" }, /minimum of 0\.01 USDC on BASE \(one US cent/);
    // A customer's crypto funding below the minimum too.
    await refused(
      {
        source: { method: "CRYPTO_DEPOSIT", asset: "BTC", network: "BITCOIN" },
        destination: usdcTo,
        source_amount: "0.000002",
      },
      /source_amount: 0\.000002 BTC is below the minimum of 0\.00000546 BTC/,
    );
    expect(await quotes()).toBe(before);
    // At the minimum: quoted.
    const at = await t.quote(a, customerOf(a), {
      source: { method: "BALANCE" },
      destination: btc,
      source_amount: undefined,
      destination_amount: "0.00000546",
    });
    expect(at.destination_amount).toMatchObject({ value: "0.00000546", asset: "BTC" });
    const rent = await t.quote(a, customerOf(a), {
      source: { method: "BALANCE" },
      destination: sol,
      source_amount: undefined,
      destination_amount: "0.00089088",
    });
    expect(rent.destination_amount).toMatchObject({ asset: "SOL" });
  });

  it("a dust BTC payout of merchant A ahead of merchant B's USDC payout: A ends FAILED with its hold released, B completes", async () => {
    const before = await t.balance(a);
    // A transfer made before minimums were checked (quotes are immutable: the guard is lifted for
    // this one change): 100 sat, below any Bitcoin dust limit.
    const dust = await balanceTransfer(
      a,
      { type: "CRYPTO_ADDRESS", asset: "BTC", network: "BITCOIN", address: BTC_PAYEE },
      "1.00",
    );
    await t.api.db.tx(async (sql) => {
      await sql.query("ALTER TABLE transfer_quotes DISABLE TRIGGER transfer_quotes_guard");
      await sql.query("UPDATE transfer_quotes SET destination_amount = 100 WHERE id = $1", [dust.quote_id]);
      await sql.query("ALTER TABLE transfer_quotes ENABLE TRIGGER transfer_quotes_guard");
    });
    const good = await balanceTransfer(b, usdcTo, "20.00");

    const pass = await executeTransfersOnce(t.api.db, transferTreasury);
    expect(pass.started).toBeGreaterThanOrEqual(1);
    expect(await sendOf(good.id)).toEqual([{ id: expect.any(String), state: "queued" }]);
    expect(await sendOf(dust.id)).toEqual([]);
    const failed = await transferOf(a, dust.id);
    expect(failed.status).toBe("FAILED");
    expect(failed.failure_reason).toMatch(/dust/);
    expect(await t.balance(a)).toEqual(before);

    await confirmSend(good.id);
    await executeTransfersOnce(t.api.db, transferTreasury);
    expect((await transferOf(b, good.id)).status).toBe("COMPLETED");
    const events = (await t.call(a, `/v1/events?object_id=${dust.id}&limit=50`)).body.data.items as Array<{
      type: string;
    }>;
    expect(events.map((e) => e.type)).toContain("transfer.failed");
    await t.expectLedgerClean();
  });

  it("bank payouts too: one whose start throws waits and then FAILS, another merchant's goes to the bank", async () => {
    const before = await t.balance(a);
    const stuck = await balanceTransfer(a, usBank("000111222333"), "40.00");
    await refusingInserts(t, { table: "transfer_payouts", column: "transfer_id", value: stuck.id }, async () => {
      const good = await balanceTransfer(b, usBank("000444555666"), "15.00");
      const bank = { banking: createSandboxBankingProvider(), keyring: t.api.deps.encryption };
      await executeTransfersOnce(t.api.db, transferTreasury, { bank });
      expect((await transferOf(b, good.id)).status).toBe("PROCESSING");
      expect((await transferOf(a, stuck.id)).status).toBe("FUNDED");
      expect((await retryState(stuck.id))?.execution_attempts).toBe(1);
      await t.api.db.query("UPDATE transfers SET execution_attempts = $2, next_attempt_at = now() WHERE id = $1", [
        stuck.id,
        MAX_START_ATTEMPTS - 1,
      ]);
      await executeTransfersOnce(t.api.db, transferTreasury, { bank });
      expect((await transferOf(a, stuck.id)).status).toBe("FAILED");
      expect(await t.balance(a)).toEqual(before);
    });
    await t.expectLedgerClean();
  });

  it("a start that keeps throwing is retried with backoff, never holding up another, and past the bound ends FAILED", async () => {
    const before = await t.balance(a);
    const stuck = await balanceTransfer(a, usdcTo, "30.00");
    // Fault injection: the treasury's table refuses this transfer's send (a database error, transient).
    await refusingInserts(t, { table: "treasury_sends", column: "idempotency_key", value: stuck.id }, async () => {
      const good = await balanceTransfer(b, usdcTo, "10.00");
      await executeTransfersOnce(t.api.db, transferTreasury);
      expect((await transferOf(b, good.id)).status).toBe("PROCESSING");
      expect((await transferOf(a, stuck.id)).status).toBe("FUNDED");
      const first = await retryState(stuck.id);
      expect(first).toMatchObject({ execution_attempts: 1, last_error: expect.stringMatching(/injected fault/) });
      expect(first?.due_in).toBeGreaterThan(3);
      expect(first?.due_in).toBeLessThanOrEqual(5);

      // Not due yet: the next pass leaves it alone.
      await executeTransfersOnce(t.api.db, transferTreasury);
      expect((await retryState(stuck.id))?.execution_attempts).toBe(1);
      // Due: tried again, the wait doubled.
      await t.api.db.query("UPDATE transfers SET next_attempt_at = now() WHERE id = $1", [stuck.id]);
      await executeTransfersOnce(t.api.db, transferTreasury);
      const second = await retryState(stuck.id);
      expect(second?.execution_attempts).toBe(2);
      expect(second?.due_in).toBeGreaterThan(8);

      // The last try allowed fails too: FAILED, its 30 USD back in available, the reason recorded.
      await t.api.db.query("UPDATE transfers SET execution_attempts = $2, next_attempt_at = now() WHERE id = $1", [
        stuck.id,
        MAX_START_ATTEMPTS - 1,
      ]);
      await executeTransfersOnce(t.api.db, transferTreasury);
      const ended = await transferOf(a, stuck.id);
      expect(ended.status).toBe("FAILED");
      expect(ended.failure_reason).toMatch(new RegExp(`failed ${MAX_START_ATTEMPTS} times: .*injected fault`));
      expect(await t.balance(a)).toEqual(before);
      expect(await sendOf(stuck.id)).toEqual([]);
      await confirmSend(good.id);
      await executeTransfersOnce(t.api.db, transferTreasury);
      expect((await transferOf(b, good.id)).status).toBe("COMPLETED");
    });
    await t.expectLedgerClean();
  });
});
