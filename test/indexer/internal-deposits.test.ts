import { createEvmAdapter } from "@mp/chain-evm";
import { createTronAdapter } from "@mp/chain-tron";
import { type ChainAdapter, type ChainConfig, resolveChainConfig } from "@mp/core";
import type { Database } from "@mp/db";
import { createTestDatabase, type TestDatabase } from "@mp/db/testing";
import { forwardNative } from "@mp/test-nodes/evm";
import { startTronTestNode, TronKey } from "@mp/test-nodes/tron";
import { privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { useAnvilWithForwarder } from "../support/anvil-forwarder.ts";
import { useStarted } from "../support/use-started.ts";
import {
  addWallet,
  catchUp,
  createMerchant,
  depositsOf,
  entriesFor,
  expectLedgerOk,
  newIndexer,
} from "./indexer-fixtures.ts";
import { CONFIRMATIONS } from "./test-chains.ts";

/**
 * Issue 10 item 9 through the indexer and the ledger: native coin paid by a contract (EVM with
 * traces on, Tron internal transactions) becomes one deposit, confirmed and credited once, and a
 * rescan of the same blocks (the cursor set back) finds the same identity and credits nothing again.
 */

let testDb: TestDatabase;
let db: Database;

beforeAll(async () => {
  testDb = await createTestDatabase();
  db = testDb.db;
});
afterAll(async () => {
  await testDb?.drop();
});

const positionOf = async (depositId: string) =>
  (await db.query<{ position: string }>("SELECT position FROM deposits WHERE id = $1", [depositId])).rows[0]?.position;

/** Pays `address` through a contract, indexes to confirmation, rescans, and checks one credited deposit. */
async function paidByContractOnce(options: {
  chain: { chain: "BASE" | "TRON"; config: ChainConfig; adapter: () => ChainAdapter };
  address: string;
  pay: () => Promise<string>;
  mine: (blocks: number) => Promise<void>;
  position: string;
}) {
  const merchant = await createMerchant(db);
  await addWallet(db, merchant, options.chain.chain, options.address);
  const indexer = newIndexer(db, options.chain);
  try {
    await catchUp(indexer);
    const txHash = await options.pay();
    await catchUp(indexer);
    await options.mine(CONFIRMATIONS);
    await catchUp(indexer);
    const [deposit, ...others] = await depositsOf(db, merchant.merchantId);
    expect(others).toEqual([]);
    expect(deposit).toMatchObject({ tx_hash: txHash, status: "CONFIRMED" });
    if (!deposit) throw new Error("no deposit");
    expect(await positionOf(deposit.id)).toBe(options.position);

    // Rescan the same blocks: same identity, nothing recorded or credited twice.
    const rewound = await db.query("UPDATE chain_cursors SET indexed_height = $2 WHERE chain = $1", [
      options.chain.chain,
      Number(deposit.block_height) - 1,
    ]);
    expect(rewound.rowCount).toBe(1);
    await catchUp(indexer);
    const again = await depositsOf(db, merchant.merchantId);
    expect(again.map((d) => [d.id, d.status, d.credit_entry_id])).toEqual([
      [deposit.id, "CONFIRMED", deposit.credit_entry_id],
    ]);
    expect((await entriesFor(db, deposit.id)).map((e) => e.kind)).toHaveLength(1);
    await expectLedgerOk(db);
  } finally {
    await indexer.stop();
  }
}

describe("EVM, traces on", () => {
  const { node, contracts } = useAnvilWithForwarder();

  it("credits ETH a contract wallet forwards once, at trace:<path>, across a rescan", async () => {
    const config = resolveChainConfig("BASE", {
      rpcUrl: node.url,
      confirmations: CONFIRMATIONS,
      batchSize: 50,
      traces: "debug_traceBlockByNumber",
    });
    const address = privateKeyToAccount(`0x${"7".repeat(64)}`).address;
    await paidByContractOnce({
      chain: { chain: "BASE", config, adapter: () => createEvmAdapter(config) },
      address,
      pay: async () => (await forwardNative(node, contracts, [{ to: address, amount: 10n ** 15n }])).txHash,
      mine: (blocks) => node.mine(blocks),
      position: "trace:0",
    });
  });
});

describe("Tron internal transactions", () => {
  const node = useStarted(
    "the Tron test node",
    () => startTronTestNode({ seed: "internal-deposits" }),
    (started) => started.stop(),
  );

  it("credits TRX a contract forwards once, at internal:<index>, across a rescan", async () => {
    const config = resolveChainConfig("TRON", {
      rpcUrl: node.url,
      confirmations: CONFIRMATIONS,
      batchSize: 50,
      tokens: [...node.tokens],
      network: "regtest",
    });
    const address = TronKey.fromLabel("internal-deposits-wallet").address;
    await paidByContractOnce({
      chain: { chain: "TRON", config, adapter: () => createTronAdapter(config) },
      address,
      pay: async () => {
        const txID = node.forwardTrx([
          { to: TronKey.fromLabel("someone-else").address, amount: 1_000_000n },
          { to: address, amount: 2_500_000n },
        ]);
        node.mine();
        return txID;
      },
      mine: async (blocks) => {
        node.mine(blocks);
      },
      position: "internal:1",
    });
  });
});
