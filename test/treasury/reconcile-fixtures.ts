import { type ChainConfig, type ChainId, resolveChainConfig } from "@mp/core";
import type { Database } from "@mp/db";
import type { Indexer } from "@mp/indexer";
import type { TronTestNode } from "@mp/test-nodes/tron";
import { type ReconcileTarget, recordTreasuryAddresses } from "@mp/treasury";
import { addWallet, createMerchant, newIndexer } from "../indexer/indexer-fixtures.ts";
import type { TestChain } from "../indexer/test-chains.ts";
import { reconcileTarget } from "../support/reconcile-target.ts";
import { TEST_LEASE_SECONDS } from "../support/test-leases.ts";

/**
 * What the reconcile suites index on their chain: the treasury's send address recorded (as the
 * signer records it at start), `deposit` the wallet address of a new merchant, and the real indexer
 * watching both (2 s lease), not yet ticked.
 */
export async function indexTreasuryAndDeposit(
  db: Database,
  chain: Pick<TestChain, "chain" | "config" | "adapter">,
  treasury: { path: string; address: string },
  deposit: string,
): Promise<Indexer> {
  const { path, address } = treasury;
  await recordTreasuryAddresses(db, [{ chain: chain.chain, purpose: "send", path, address }]);
  await addWallet(db, await createMerchant(db), chain.chain, deposit);
  return newIndexer(db, chain, { leaseSeconds: TEST_LEASE_SECONDS });
}

/**
 * Sweeper pass, pipeline pass, a block, until `done` after a round (given the round's index) or
 * `rounds` ran; then both stop and two more blocks confirm what landed last.
 */
export async function sweepRounds(
  chain: ChainId,
  loops: Record<"sweeper" | "pipeline", { tick(chain: ChainId): Promise<void>; stop(): Promise<void> }>,
  mine: (blocks: number) => Promise<unknown>,
  rounds: number,
  done: (round: number) => Promise<boolean>,
): Promise<void> {
  const { sweeper, pipeline } = loops;
  for (let round = 0; round < rounds; round++) {
    await sweeper.tick(chain);
    await pipeline.tick(chain);
    await mine(1);
    if (await done(round)) break;
  }
  await sweeper.stop();
  await pipeline.stop();
  await mine(2);
}

/** The Tron test node as TRON (two confirmations) and as `payments reconcile chains` reads it (TRX and its tokens). */
export function tronReconcileChain(node: TronTestNode): { config: ChainConfig; targets: ReconcileTarget[] } {
  const config = resolveChainConfig("TRON", {
    rpcUrl: node.url,
    tokens: [...node.tokens],
    network: "regtest",
    confirmations: 2,
  });
  const assets = [
    { asset: "TRX", address: null, decimals: 6 },
    ...node.tokens.map((t) => ({ asset: t.asset, address: t.address, decimals: t.decimals })),
  ];
  return { config, targets: [reconcileTarget(config, assets)] };
}
