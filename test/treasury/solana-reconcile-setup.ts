import { createSolanaAdapter } from "@mp/chain-solana";
import { silentLogger } from "@mp/core";
import { createWatchSet } from "@mp/custody";
import type { Database } from "@mp/db";
import { createIndexer, type Indexer } from "@mp/indexer";
import { createSandboxRateProvider } from "@mp/providers";
import { type ReconcileTarget, recordTreasuryAddresses } from "@mp/treasury";
import {
  type SolanaTreasuryHarness,
  startSolanaTreasury,
} from "../../packages/treasury/test/support/solana-treasury.ts";
import { reconcileTarget } from "../support/reconcile-target.ts";
import { TEST_LEASE_SECONDS } from "../support/test-leases.ts";

export interface SolanaReconcileSetup {
  h: SolanaTreasuryHarness;
  /** Watches the treasury and every SOLANA deposit address, as the indexer role does. */
  indexer: Indexer;
  /** SOLANA with SOL and the node's tokens, as `payments reconcile chains` reads it. */
  targets(): ReconcileTarget[];
}

/** The Solana test node with an unfunded treasury (recorded as the signer records it) and an indexer on it. */
export async function startSolanaReconcile(db: Database): Promise<SolanaReconcileSetup> {
  const h = await startSolanaTreasury(db, { sol: 0n, usdc: 0n });
  const key = h.keys.key("solana");
  await recordTreasuryAddresses(db, [{ chain: "SOLANA", purpose: "send", path: key.path, address: h.treasury }]);
  const indexer = createIndexer({
    db,
    adapter: createSolanaAdapter(h.config),
    config: h.config,
    watch: createWatchSet(db, "SOLANA"),
    rates: createSandboxRateProvider(),
    logger: silentLogger(),
    leaseSeconds: TEST_LEASE_SECONDS,
  });
  return {
    h,
    indexer,
    targets: () => [
      reconcileTarget(h.config, [
        { asset: "SOL", address: null, decimals: 9 },
        ...h.config.tokens.map((t) => ({ asset: t.asset, address: t.address, decimals: t.decimals })),
      ]),
    ],
  };
}
