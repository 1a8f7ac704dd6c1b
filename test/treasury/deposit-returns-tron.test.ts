import { createTronAdapter, createTronSender } from "@mp/chain-tron";
import { type ChainConfig, silentLogger } from "@mp/core";
import { createTreasuryKeys } from "@mp/custody";
import type { Indexer } from "@mp/indexer";
import { checkLedger, returnHeldDeposit } from "@mp/ledger";
import { startTronTestNode, TronKey, type TronTestNode } from "@mp/test-nodes/tron";
import { sendDepositReturn, settleDepositReturns } from "@mp/transfers";
import { type ReconcileTarget, reconcileChains, recordTreasuryAddresses } from "@mp/treasury";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TEST_TREASURY_MNEMONIC } from "../../packages/treasury/test/support/evm-treasury.ts";
import { testPipelines } from "../../packages/treasury/test/support/test-pipelines.ts";
import { KEY_SCHEMES } from "../../services/payments/src/chain-families.ts";
import { transferTreasury } from "../../services/payments/src/transfer-treasury.ts";
import { addWallet, catchUp, createMerchant, newIndexer, rejectCustomer } from "../indexer/indexer-fixtures.ts";
import { useTestDatabase } from "../support/test-database.ts";
import { TEST_LEASE_SECONDS } from "../support/test-leases.ts";
import { tronReconcileChain } from "./reconcile-fixtures.ts";

const TRX = 1_000_000n;
const USDT = 1_000_000n;

/**
 * Returns on chain (issue 29) on the Tron test node, with the real indexer and send pipeline: a held
 * USDT deposit (its customer rejected) goes back to its sender (the TRC-20 transfer's `from`) once,
 * less the network fee (1 USDT at the sandbox's rate); the ledger and `reconcile chains` agree.
 */
describe("deposit returns on the Tron test node", () => {
  const database = useTestDatabase();
  const pipelines = testPipelines("TRON", () => database.db);
  const keys = createTreasuryKeys(TEST_TREASURY_MNEMONIC, { bitcoinNetwork: "regtest", schemes: KEY_SCHEMES });
  const payer = TronKey.fromLabel(`returns-payer-${Math.random()}`);
  const deposit = TronKey.fromLabel(`returns-deposit-${Math.random()}`).address;
  let node: TronTestNode;
  let indexer: Indexer;
  let targets: ReconcileTarget[];
  let config: ChainConfig;

  const settle = async () => {
    node.mine();
    node.mine();
    node.mine();
    await catchUp(indexer);
  };

  beforeAll(async () => {
    const db = database.db;
    node = await startTronTestNode({ seed: `returns-${Math.random()}` });
    ({ config, targets } = tronReconcileChain(node));
    const key = keys.key("tron");
    await recordTreasuryAddresses(db, [{ chain: "TRON", purpose: "send", path: key.path, address: key.address }]);
    const merchant = await createMerchant(db);
    await addWallet(db, merchant, "TRON", deposit);
    await rejectCustomer(db, merchant);
    const chain = { chain: "TRON" as const, config, adapter: () => createTronAdapter(config) };
    indexer = newIndexer(db, chain, { leaseSeconds: TEST_LEASE_SECONDS });
    node.transfer(key.address, 500n * TRX);
    node.transferToken(key.address, 100n * USDT);
    node.transfer(payer.address, 100n * TRX);
    node.transferToken(payer.address, 50n * USDT);
    await settle();
  }, 120_000);

  afterAll(async () => {
    await indexer?.stop();
    await node?.stop();
  });

  it("a held USDT deposit goes back to its sender once, less the fee; ledger check and reconcile chains agree", async () => {
    const db = database.db;
    node.transferToken(deposit, 25n * USDT, { from: payer });
    await settle();
    const { rows } = await db.query<{ id: string; hold_status: string | null; from_address: string }>(
      "SELECT id, hold_status, from_address FROM deposits WHERE to_address = $1",
      [deposit],
    );
    expect(rows).toEqual([expect.objectContaining({ hold_status: "HELD", from_address: payer.address })]);
    const depositId = rows[0]?.id ?? "";
    const before = node.tokenBalance(payer.address);

    const ask = () =>
      db.tx((c) =>
        sendDepositReturn(c, { treasury: transferTreasury }, { depositId, networkFeeUsdMicros: 1_000_000n }),
      );
    await db.tx((c) => returnHeldDeposit(c, { depositId, reason: "KYC rejected" }));
    const sent = await ask();
    expect(sent).toMatchObject({ state: "sending", to: payer.address, amountRaw: 24n * USDT, feeRaw: USDT });
    expect(await ask()).toMatchObject({ state: "sending", sendKey: sent.sendKey });

    const sends = await db.query<{ id: string }>("SELECT id FROM treasury_sends WHERE purpose = 'return'");
    expect(sends.rows).toHaveLength(1);
    const sender = createTronSender({ config, keys, db, logger: silentLogger() });
    await pipelines.runUntilConfirmed(
      sender,
      sends.rows.map((s) => s.id),
      () => node.mine(),
    );
    expect(await settleDepositReturns(db, transferTreasury, 50)).toBe(1);
    expect(await settleDepositReturns(db, transferTreasury, 50)).toBe(0);
    await settle();
    expect(node.tokenBalance(payer.address)).toBe(before + 24n * USDT);
    expect((await ask()).state).toBe("returned");
    expect((await checkLedger(db)).problems).toEqual([]);
    const report = await reconcileChains(db, targets);
    expect(report.exitCode, JSON.stringify(report.lines)).toBe(0);
    expect((await db.query("SELECT 1 FROM treasury_sends WHERE purpose = 'return'")).rowCount).toBe(1);
  }, 300_000);
});
