import { createEvmSweeper } from "@mp/chain-evm";
import type { Database, LeaseKeeper } from "@mp/db";
import { ANVIL_DEPLOYER, sendFromUnlocked, tokenBalance } from "@mp/test-nodes/evm";
import { encodeFunctionData, erc20Abi, getAddress, type Hex } from "viem";
import type { EvmReconcileChain } from "../treasury/evm-reconcile-chain.ts";
import { evmWorld } from "./evm-world.ts";
import { type SweepWorld, stablecoinSweepAsset, sweeperDeps, sweepWorldOn } from "./sweep-world.ts";

const ETH = 10n ** 18n;

/**
 * anvil as the sweep fuzz drives it (evmWorld's node, indexer, holds and reorgs): customers pay
 * USDC and ETH to deposit addresses the real indexer watches and credits; the EVM sweeper tops the
 * token addresses up with gas (a treasury send through the pipeline) and sweeps them into the
 * treasury. Thresholds are the defaults: 10 USDC, 0.01 ETH.
 */
export function evmSweepWorld(db: Database, c: EvmReconcileChain): SweepWorld {
  const { node } = c;
  return sweepWorldOn(evmWorld(db, c), {
    assets: [
      stablecoinSweepAsset("USDC"),
      { asset: "ETH", min: ETH / 1_000n, max: ETH / 4n, threshold: ETH / 100n, native: true },
    ],
    treasury: c.treasury,
    // Not waited for: while miners hold, the payment waits in the mempool like ours.
    deposit: (address, asset, amount) =>
      sendFromUnlocked(
        node,
        asset === "ETH"
          ? { from: ANVIL_DEPLOYER.address, to: getAddress(address), value: amount }
          : {
              from: ANVIL_DEPLOYER.address,
              to: c.usdc.address,
              data: encodeFunctionData({
                abi: erc20Abi,
                functionName: "transfer",
                args: [getAddress(address), amount],
              }),
            },
      ),
    balance: (address, asset) =>
      asset === "ETH"
        ? node.publicClient.getBalance({ address: getAddress(address) })
        : tokenBalance(node, c.usdc, address),
    sweeper: (fetch: typeof globalThis.fetch, leases: LeaseKeeper) =>
      createEvmSweeper({ ...sweeperDeps(db, c.keys, leases, fetch), chains: [c.config] }),
    async landed(txHash) {
      const receipt = await node.publicClient.getTransactionReceipt({ hash: txHash as Hex }).catch(() => null);
      return receipt?.status === "success";
    },
  });
}
