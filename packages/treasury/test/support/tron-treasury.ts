import { createTronAdapter } from "@mp/chain-tron";
import { type ChainAsset, type ChainConfig, resolveChainConfig, silentLogger } from "@mp/core";
import { createTreasuryKeys, type TreasuryKeys } from "@mp/custody";
import type { Database } from "@mp/db";
import type { Indexer } from "@mp/indexer";
import { startTronTestNode, type TronTestNode } from "@mp/test-nodes/tron";
import { createTronSender } from "../../../../chains/tron/src/send/tron-sender.ts";
import { KEY_SCHEMES } from "../../../../services/payments/src/chain-families.ts";
import { catchUp, newIndexer } from "../../../../test/indexer/indexer-fixtures.ts";
import { TEST_LEASE_SECONDS } from "../../../../test/support/test-leases.ts";
import type { ChainSender } from "../../src/chain-sender.ts";
import { recordTreasuryAddresses } from "../../src/treasury-store.ts";
import { TEST_TREASURY_MNEMONIC } from "./evm-treasury.ts";

export interface TronTreasuryHarness {
  node: TronTestNode;
  config: ChainConfig;
  /** TRX and the node's TRC-20, as reconciliation lists them. */
  assets: ChainAsset[];
  keys: TreasuryKeys;
  /** The treasury's address, m/44'/195'/0'/0/0 of the test treasury mnemonic. */
  treasury: string;
  indexer: Indexer;
  sender(): ChainSender;
  /** Mines `count` blocks and lets the indexer catch up. */
  mine(count?: number): Promise<void>;
  stop(): Promise<void>;
}

/**
 * The Tron test node, a TRON chain config on it (two confirmations), the treasury's address recorded
 * in treasury_addresses (as the signer does at start), and the real indexer watching the deposit and
 * treasury addresses: deposits and treasury receipts are recorded the way they are in production.
 */
export async function startTronTreasury(db: Database, seed: string): Promise<TronTreasuryHarness> {
  const node = await startTronTestNode({ seed });
  const config = resolveChainConfig("TRON", {
    rpcUrl: node.url,
    tokens: [...node.tokens],
    network: "regtest",
    confirmations: 2,
  });
  const keys = createTreasuryKeys(TEST_TREASURY_MNEMONIC, { bitcoinNetwork: "regtest", schemes: KEY_SCHEMES });
  const key = keys.key("tron");
  await recordTreasuryAddresses(db, [{ chain: "TRON", purpose: "send", path: key.path, address: key.address }]);
  const indexer = newIndexer(
    db,
    { chain: "TRON", config, adapter: () => createTronAdapter(config) },
    { leaseSeconds: TEST_LEASE_SECONDS },
  );
  return {
    node,
    config,
    assets: [
      { asset: "TRX", address: null, decimals: 6 },
      ...node.tokens.map((t) => ({ asset: t.asset, address: t.address, decimals: t.decimals })),
    ],
    keys,
    treasury: key.address,
    indexer,
    sender: () => createTronSender({ config, keys, db, logger: silentLogger() }),
    async mine(count = 1) {
      for (let i = 0; i < count; i++) node.mine();
      await catchUp(indexer);
    },
    async stop() {
      await indexer.stop();
      await node.stop();
    },
  };
}
