import { createEvmAdapter, createEvmSender } from "@mp/chain-evm";
import { type ChainConfig, resolveChainConfig, silentLogger } from "@mp/core";
import { createTreasuryKeys, createWatchSet, type TreasuryKeys } from "@mp/custody";
import type { Database } from "@mp/db";
import { createIndexer, type Indexer } from "@mp/indexer";
import { createSandboxRateProvider } from "@mp/providers";
import { type AnvilNode, deployTestToken, startAnvil, type TestToken } from "@mp/test-nodes/evm";
import { createSendPipeline, type ReconcileTarget, recordTreasuryAddresses, type SendPipeline } from "@mp/treasury";
import { getAddress, type Hex } from "viem";
import { KEY_SCHEMES } from "../../services/payments/src/chain-families.ts";
import { catchUp } from "../indexer/indexer-fixtures.ts";
import { reconcileTarget } from "../support/reconcile-target.ts";
import { TEST_LEASE_SECONDS } from "../support/test-leases.ts";

/** A public test mnemonic (its EVM treasury address is no anvil dev account). */
export const TREASURY_MNEMONIC =
  "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about";

/** anvil with a test USDC, BASE configured on it, the treasury address recorded, and an indexer watching. */
export interface EvmReconcileChain {
  node: AnvilNode;
  usdc: TestToken;
  config: ChainConfig;
  keys: TreasuryKeys;
  treasury: Hex;
  indexer: Indexer;
  /** BASE with ETH and USDC, for reconcileChains. */
  targets(): ReconcileTarget[];
  /** The treasury's send pipeline on this chain (2 confirmations); the caller stops it. */
  pipeline(): SendPipeline;
  /** Mines past the confirmations and lets the indexer record and confirm everything. */
  settle(): Promise<void>;
  stop(): Promise<void>;
}

export async function startEvmReconcileChain(db: Database): Promise<EvmReconcileChain> {
  const node = await startAnvil();
  const usdc = await deployTestToken(node, { name: "USD Coin", symbol: "USDC", decimals: 6 });
  const config = resolveChainConfig("BASE", {
    rpcUrl: node.url,
    confirmations: 2,
    network: "regtest",
    startHeight: await node.blockNumber(),
    tokens: [{ asset: "USDC", address: usdc.address, decimals: 6 }],
  });
  const keys = createTreasuryKeys(TREASURY_MNEMONIC, { bitcoinNetwork: "regtest", schemes: KEY_SCHEMES });
  const treasury = getAddress(keys.key("evm").address);
  await recordTreasuryAddresses(db, [
    { chain: "BASE", purpose: "send", path: keys.key("evm").path, address: treasury },
  ]);
  const indexer = createIndexer({
    db,
    adapter: createEvmAdapter(config),
    config,
    watch: createWatchSet(db, "BASE"),
    rates: createSandboxRateProvider(),
    logger: silentLogger(),
    leaseSeconds: TEST_LEASE_SECONDS,
  });
  const chain = { node, usdc, config, keys, treasury, indexer };
  return {
    ...chain,
    pipeline: () =>
      createSendPipeline({
        db,
        senders: [createEvmSender({ config, keys, db, logger: silentLogger() })],
        logger: silentLogger(),
        confirmations: { BASE: 2 },
        leaseSeconds: TEST_LEASE_SECONDS,
      }),
    targets: () => [
      reconcileTarget(config, [
        { asset: "ETH", address: null, decimals: 18 },
        { asset: "USDC", address: usdc.address, decimals: 6 },
      ]),
    ],
    settle: async () => {
      await node.mine(3);
      await catchUp(indexer);
    },
    stop: async () => {
      await indexer.stop();
      await node.stop();
    },
  };
}
