import { randomBytes } from "node:crypto";
import { createTronAdapter, createTronSender } from "@mp/chain-tron";
import { silentLogger } from "@mp/core";
import { createTreasuryKeys } from "@mp/custody";
import type { Indexer } from "@mp/indexer";
import { startTronTestNode, TronKey, type TronTestNode } from "@mp/test-nodes/tron";
import { type ReconcileTarget, reconcileChains, requestSend } from "@mp/treasury";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TEST_TREASURY_MNEMONIC } from "../../packages/treasury/test/support/evm-treasury.ts";
import { testPipelines } from "../../packages/treasury/test/support/test-pipelines.ts";
import { KEY_SCHEMES, sendCheckOf } from "../../services/payments/src/chain-families.ts";
import { catchUp } from "../indexer/indexer-fixtures.ts";
import { useTestDatabase } from "../support/test-database.ts";
import { indexTreasuryAndDeposit, tronReconcileChain } from "./reconcile-fixtures.ts";

const TRX = 1_000_000n;

describe("payments reconcile chains on the Tron test node", () => {
  const database = useTestDatabase();
  const pipelines = testPipelines("TRON", () => database.db);
  let node: TronTestNode;
  let indexer: Indexer;
  let targets: ReconcileTarget[];

  beforeAll(async () => {
    const db = database.db;
    node = await startTronTestNode({ seed: `reconcile-${Math.random()}` });
    const { config, targets: reconciled } = tronReconcileChain(node);
    targets = reconciled;
    const keys = createTreasuryKeys(TEST_TREASURY_MNEMONIC, { bitcoinNetwork: "regtest", schemes: KEY_SCHEMES });
    const key = keys.key("tron");
    const deposit = new TronKey(randomBytes(32).toString("hex")).address;
    const chain = { chain: "TRON" as const, config, adapter: () => createTronAdapter(config) };
    indexer = await indexTreasuryAndDeposit(db, chain, key, deposit);
    node.transfer(key.address, 500n * TRX);
    node.transferToken(key.address, 100_000_000n);
    node.transfer(deposit, 20n * TRX);
    node.transferToken(deposit, 5_000_000n);
    node.mine();
    node.mine();
    node.mine();
    await catchUp(indexer);

    const { send } = await requestSend(
      db,
      {
        chain: "TRON",
        asset: "USDT",
        to: new TronKey(randomBytes(32).toString("hex")).address,
        amountRaw: 1_500_000n,
        purpose: "operator",
        idempotencyKey: "reconcile-trc20",
      },
      sendCheckOf("TRON"),
    );
    const sender = createTronSender({ config, keys, db, logger: silentLogger() });
    await pipelines.runUntilConfirmed(sender, [send.id], () => node.mine());
    node.mine();
    node.mine();
    await catchUp(indexer);
  }, 120_000);

  afterAll(async () => {
    await indexer?.stop();
    await node?.stop();
  });

  it("agrees to the sun and the token unit, the TRC-20 send's burnt energy counted as its fee (exit 0)", async () => {
    const report = await reconcileChains(database.db, targets);
    expect(report.exitCode, JSON.stringify(report.lines)).toBe(0);
    const trx = report.lines.find((l) => l.asset === "TRX");
    const fee = BigInt(trx?.breakdown.fees ?? "0");
    expect(fee).toBeGreaterThan(0n);
    expect(trx?.chain_holdings).toBe((520n * TRX - fee).toString());
    expect(trx?.breakdown.operator_float).toBe((500n * TRX).toString());
    expect(report.lines.find((l) => l.asset === "USDT")).toMatchObject({
      status: "agrees",
      chain_holdings: (105_000_000n - 1_500_000n).toString(),
    });
  });
});
