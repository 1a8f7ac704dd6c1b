import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { sendCheckOf } from "../../../services/payments/src/chain-families.ts";
import { insertMerchantWithCustomer } from "../../../test/support/db-fixtures.ts";
import { useTestDatabase } from "../../../test/support/test-database.ts";
import { listOpenSends, requestSend, type SendRequest } from "../src/index.ts";

const t = useTestDatabase();

const request = (key: string, overrides: Partial<SendRequest> = {}): SendRequest => ({
  chain: "BASE",
  asset: "USDC",
  to: "0x70997970C51812dc3A010C7d01b50e0d17dc79C8",
  amountRaw: 1_500_000n,
  purpose: "operator",
  idempotencyKey: key,
  ...overrides,
});

/** A send request, checked by its chain's family as the service's callers do (the registry's send check). */
const requestChecked = (r: SendRequest) => requestSend(t.db, r, sendCheckOf(r.chain));

/** Each of `refused` is refused with `code`, and none of them is stored. */
async function expectRefusedUnstored(refused: SendRequest[], code: string): Promise<void> {
  for (const r of refused) {
    await expect(requestChecked(r), r.idempotencyKey).rejects.toMatchObject({ code });
  }
  const { rows } = await t.db.query("SELECT id FROM treasury_sends WHERE idempotency_key = ANY($1::text[])", [
    refused.map((r) => r.idempotencyKey),
  ]);
  expect(rows).toEqual([]);
}

describe("requestSend", () => {
  it("stores a queued send once per idempotency key, also when callers race", async () => {
    const results = await Promise.all(Array.from({ length: 8 }, () => requestChecked(request("race-1"))));
    expect(new Set(results.map((r) => r.send.id)).size).toBe(1);
    expect(results.filter((r) => r.created)).toHaveLength(1);
    expect(results[0]?.send).toMatchObject({ state: "queued", amountRaw: 1_500_000n, txHash: null });
    const { rows } = await t.db.query("SELECT id FROM treasury_sends WHERE idempotency_key = 'race-1'");
    expect(rows).toHaveLength(1);
  });

  it("refuses the same key with other parameters and stores nothing", async () => {
    await requestChecked(request("other-1"));
    await expect(requestChecked(request("other-1", { amountRaw: 1_500_001n }))).rejects.toMatchObject({
      code: "idempotency_conflict",
    });
    await expect(
      requestChecked(request("other-1", { to: "0x0000000000000000000000000000000000000001" })),
    ).rejects.toMatchObject({
      code: "idempotency_conflict",
    });
    const { rows } = await t.db.query<{ amount_raw: string }>(
      "SELECT amount_raw::text FROM treasury_sends WHERE idempotency_key = 'other-1'",
    );
    expect(rows).toEqual([{ amount_raw: "1500000" }]);
  });

  it("refuses a non-positive amount", async () => {
    await expect(requestChecked(request("zero", { amountRaw: 0n }))).rejects.toMatchObject({
      code: "validation_error",
    });
  });

  it("refuses, before anything is queued, a destination that is no address of the chain and a Bitcoin amount below dust", async () => {
    const refused = [
      request("bad-evm", { to: "0x70997970c51812dc3a010c7d01b50e0d17dc79C8" }),
      request("bad-evm-length", { to: "0x1234" }),
      request("bad-btc", { chain: "BITCOIN", asset: "BTC", to: "bcrt1qnotanaddress", amountRaw: 10_000n }),
      request("bad-btc-checksum", {
        chain: "BITCOIN",
        asset: "BTC",
        to: "bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t5",
        amountRaw: 10_000n,
      }),
      request("btc-dust", {
        chain: "BITCOIN",
        asset: "BTC",
        to: "bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4",
        amountRaw: 293n,
      }),
    ];
    await expectRefusedUnstored(refused, "validation_error");
    // At the dust limit, to a valid address: queued.
    const { send } = await requestChecked(
      request("btc-ok", {
        chain: "BITCOIN",
        asset: "BTC",
        to: "bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4",
        amountRaw: 294n,
      }),
    );
    expect(send.state).toBe("queued");
  });

  it("refuses a transfer payout to an address of ours on any chain of its family; the operator may send there", async () => {
    const deposit = "0x90F79bf6EB2c4f870365E785982E1f101E93b906";
    const treasury = "bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080";
    await t.db.tx(async (sql) => {
      const { merchantId, customerId } = await insertMerchantWithCustomer(sql, "Payee merchant");
      const wallet = randomUUID();
      await sql.query(
        "INSERT INTO wallets (id, merchant_id, customer_id, label, derivation_index) VALUES ($1, $2, $3, 'payee', 0)",
        [wallet, merchantId, customerId],
      );
      // A deposit address recorded on ETHEREUM is ours on BASE too.
      await sql.query(
        `INSERT INTO destinations (id, wallet_id, merchant_id, chain, address, address_key, derivation_path)
         VALUES ($1, $2, $3, 'ETHEREUM', $4, $5, 'm/test')`,
        [randomUUID(), wallet, merchantId, deposit, deposit.toLowerCase()],
      );
      await sql.query(
        "INSERT INTO treasury_addresses (chain, purpose, path, address, address_key) VALUES ('BITCOIN', 'send', 'm/test', $1, $1)",
        [treasury],
      );
    });
    const refused = [
      request("internal-evm", { purpose: "transfer", to: deposit }),
      request("internal-evm-lower", { purpose: "transfer", to: deposit.toLowerCase() }),
      request("internal-btc", {
        purpose: "transfer",
        chain: "BITCOIN",
        asset: "BTC",
        to: treasury.toUpperCase(),
        amountRaw: 10_000n,
      }),
    ];
    await expectRefusedUnstored(refused, "destination_internal");
    // The operator's own send there is taken: the indexer credits it to the address's owner.
    expect((await requestChecked(request("operator-to-deposit", { to: deposit }))).created).toBe(true);
  });

  it("lists open sends oldest first, per chain", async () => {
    await requestChecked(request("tron-1", { chain: "TRON", asset: "TRX", to: "TJRabPrwbZy45sbavfcjinPJC18kjpRTv8" }));
    const tron = await listOpenSends(t.db, "TRON");
    expect(tron.map((s) => s.idempotencyKey)).toEqual(["tron-1"]);
    expect((await listOpenSends(t.db)).length).toBeGreaterThanOrEqual(3);
  });
});
