import { createSolanaSender } from "@mp/chain-solana";
import { resolveChainConfig, silentLogger } from "@mp/core";
import { createTreasuryKeys } from "@mp/custody";
import type { Indexer } from "@mp/indexer";
import { type SolanaTestNode, startSolanaTestNode } from "@mp/test-nodes/solana";
import { executeTransfersOnce } from "@mp/transfers";
import { recordTreasuryAddresses, type SendPipeline } from "@mp/treasury";
import { Keypair } from "@solana/web3.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TEST_TREASURY_MNEMONIC } from "../../packages/treasury/test/support/evm-treasury.ts";
import { testSendPipeline } from "../../packages/treasury/test/support/test-pipelines.ts";
import { KEY_SCHEMES } from "../../services/payments/src/chain-families.ts";
import { transferTreasury } from "../../services/payments/src/transfer-treasury.ts";
import { usBank } from "../api/transfers-bank-support.ts";
import { startTransfersApi, type TransfersApi } from "../api/transfers-support.ts";
import { catchUp, newIndexer } from "../indexer/indexer-fixtures.ts";
import { CONFIRMATIONS, startEvmChain, type TestChain } from "../indexer/test-chains.ts";
import type { TestMerchant } from "../support/api-harness.ts";
import { drainerOf, expectThreeBankDrainsPaid, liquidationSteps, sandboxPayoutBank } from "./drain-support.ts";

const LAMPORTS_PER_SOL = 1_000_000_000n;
/** The sandbox bank's payouts complete after PAYOUT_DELAY_MS of its clock, which the test moves. */
const PAYOUT_DELAY_MS = 60_000;
let skew = 0;

/**
 * Issue 30 on the local chains (its "how it will be judged"): USDC paid on anvil (BASE) to a
 * liquidation address, seen and confirmed by the real indexer, drained by the drainer, paid out by
 * the transfer executor: to the sandbox bank at exact amounts, or in SOL on the Solana test node by
 * the treasury's send pipeline, once per deposit; `ledger check` clean.
 */
describe("liquidation addresses on the local chains (anvil BASE, the Solana test node)", () => {
  let t: TransfersApi;
  let base: TestChain;
  let solana: SolanaTestNode;
  let indexer: Indexer;
  let pipeline: SendPipeline;
  let a: TestMerchant;
  let customerId: string;

  beforeAll(async () => {
    base = await startEvmChain();
    solana = await startSolanaTestNode({ seed: `liquidation-${Math.random()}` });
    const solanaConfig = resolveChainConfig("SOLANA", {
      rpcUrl: solana.url,
      confirmations: 2,
      network: "regtest",
      tokens: [...solana.tokens],
    });
    t = await startTransfersApi({ chains: { BASE: base.config, SOLANA: solanaConfig } });
    const keys = createTreasuryKeys(TEST_TREASURY_MNEMONIC, { bitcoinNetwork: "regtest", schemes: KEY_SCHEMES });
    const treasury = keys.key("solana");
    // The treasury funded with SOL on the Solana test node, recorded as the signer records it.
    solana.transfer(treasury.address, 10n * LAMPORTS_PER_SOL);
    solana.mine();
    await recordTreasuryAddresses(t.api.db, [
      { chain: "SOLANA", purpose: "send", path: treasury.path, address: treasury.address },
    ]);
    pipeline = testSendPipeline(
      t.api.db,
      "SOLANA",
      createSolanaSender({ config: solanaConfig, keys, db: t.api.db, logger: silentLogger() }),
    );
    indexer = newIndexer(t.api.db, base);
    a = await t.api.merchant();
    customerId = (await t.bankCustomer(a)).customerId;
    // The merchant's fee for the product: 0.25 USD + 1% (its override).
    await t.api.db.query(
      "INSERT INTO liquidation_fee_overrides (merchant_id, fixed_usd_micros, basis_points) VALUES ($1, 250000, 100)",
      [a.merchantId],
    );
  }, 180_000);
  afterAll(async () => {
    await pipeline?.stop();
    await indexer?.stop();
    await t?.stop();
    await base?.close();
    await solana?.stop();
  });

  const bank = () => sandboxPayoutBank(t.api, PAYOUT_DELAY_MS, () => new Date(Date.now() + skew));
  const drain = () => drainerOf(t.api)();
  const create = (destination: unknown) => liquidationSteps(t, a, customerId).create(destination);
  const drains = (addressId: string) => liquidationSteps(t, a, customerId).drains(addressId);
  /** Pays `micros` of test USDC on anvil to `address`, mines it deep enough, and lets the indexer confirm it. */
  const payConfirmed = async (address: string, micros: bigint) => {
    const tx = await base.pay(address, micros);
    await base.mine(CONFIRMATIONS - 1);
    await catchUp(indexer);
    return tx;
  };
  /** Runs drainer, executor, send pipeline and the bank's clock until every drain of `addressId` is processed. */
  const runUntilPaid = async (addressId: string, expected: number) => {
    for (let pass = 0; ; pass += 1) {
      await drain();
      await executeTransfersOnce(t.api.db, transferTreasury, { bank: bank() });
      await pipeline.tick("SOLANA");
      solana.mine(1);
      skew += PAYOUT_DELAY_MS / 2;
      const states = (await drains(addressId)).map((d) => d.state);
      if (states.length === expected && states.every((s) => s === "payment_processed")) return;
      if (pass > 60) throw new Error(`drains never all paid: ${states.join(", ")}`);
    }
  };

  it("three USDC deposits on anvil are drained to the sandbox bank at exact amounts (rate, spread, fee)", async () => {
    expect(t.api.deps.transfers.spreadBps).toBe(50);
    const address = await create(usBank("000123456789"));
    const before = await t.balance(a);
    const txs = [
      await payConfirmed(address.address, 100_000_000n),
      await payConfirmed(address.address, 25_500_000n),
      await payConfirmed(address.address, 10_123_456n),
    ];
    await runUntilPaid(address.id, 3);
    // Once more: a second worker's pass, or a restart, pays nothing again.
    expect(await drain()).toMatchObject({ submitted: 0, notPaid: 0 });

    const deposits = await t.api.db.query<{ id: string; tx_hash: string; fee: string }>(
      "SELECT id, tx_hash, fee_usd_micros::text AS fee FROM deposits WHERE to_address = $1",
      [address.address],
    );
    expect(deposits.rows.map((d) => d.tx_hash.toLowerCase()).sort()).toEqual(txs.map((x) => x.toLowerCase()).sort());
    expect(deposits.rows.map((d) => d.fee)).toEqual(["0", "0", "0"]);
    const byTx = new Map(deposits.rows.map((d) => [d.tx_hash.toLowerCase(), d.id]));
    await expectThreeBankDrainsPaid(t, a, {
      addressId: address.id,
      drains: await drains(address.id),
      depositIds: txs.map((tx) => byTx.get(tx.toLowerCase()) ?? ""),
      before,
    });
    await t.expectLedgerClean();
  }, 300_000);

  it("an address bound to a Solana address pays SOL on the Solana test node once per deposit", async () => {
    const payee = Keypair.generate().publicKey.toBase58();
    const address = await create({ type: "CRYPTO_ADDRESS", network: "SOLANA", asset: "SOL", address: payee });
    await payConfirmed(address.address, 20_000_000n);
    await payConfirmed(address.address, 7_500_000n);
    await runUntilPaid(address.id, 2);
    for (let i = 0; i < 5; i += 1) {
      expect(await drain()).toMatchObject({ submitted: 0 });
      await executeTransfersOnce(t.api.db, transferTreasury, { bank: bank() });
      await pipeline.tick("SOLANA");
      solana.mine(1);
    }

    const paid = await drains(address.id);
    expect(paid.map((d) => d.destination_amount.asset)).toEqual(["SOL", "SOL"]);
    // Exact: the sandbox's SOL at 150.00 USD, USDC at 1; rate 1/150 less the 50 bp spread, cut to 12
    // decimals (0.006633333333); fee 0.25 + 1% rounded up to the cent; SOL rounded down to the lamport.
    // 20.00: fee 0.45, 19.55 x 0.006633333333 = 0.12968166666 -> 0.129681666.
    // 7.50: fee 0.25 + 0.075 -> 0.33, 7.17 x 0.006633333333 = 0.04756099999 -> 0.047560999.
    expect((await t.api.deps.rates.rateFor("SOL")).rate).toBe("150.00");
    const bySource = new Map(paid.map((d) => [d.source_amount.value, d]));
    for (const [source, fee, sol] of [
      ["20.00", "0.45", "0.129681666"],
      ["7.50", "0.33", "0.047560999"],
    ]) {
      expect(bySource.get(source)).toMatchObject({
        state: "payment_processed",
        fee: { asset: "USD", value: fee },
        destination_amount: { asset: "SOL", network: "SOLANA", value: sol },
        rate: { base_currency: "USD", quote_currency: "SOL", value: "0.006633333333" },
      });
    }
    const sends = await t.api.db.query<{ amount_raw: string; state: string }>(
      `SELECT s.amount_raw::text, s.state FROM treasury_sends s WHERE s.chain = 'SOLANA' AND s.to_address = $1`,
      [payee],
    );
    expect(sends.rows.map((s) => s.state)).toEqual(["confirmed", "confirmed"]);
    // Each drain's destination amount, in lamports, sent once; the payee holds exactly their sum.
    const lamports = (value: string) => {
      const [whole = "0", frac = ""] = value.split(".");
      return BigInt(whole) * LAMPORTS_PER_SOL + BigInt(frac.padEnd(9, "0"));
    };
    const owed = paid.map((d) => lamports(d.destination_amount.value)).sort();
    expect(sends.rows.map((s) => BigInt(s.amount_raw)).sort()).toEqual(owed);
    expect(solana.balance(payee)).toBe(owed.reduce((x, y) => x + y, 0n));
    await t.expectLedgerClean();
  }, 300_000);
});
