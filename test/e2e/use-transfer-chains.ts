import type { TestDatabase } from "@mp/db/testing";
import { useTempDir, useTestDatabase } from "../support/test-database.ts";
import { useStarted } from "../support/use-started.ts";
import { sharedProcessEnv } from "./several-processes.ts";
import { startTransferChains, type TransferChains } from "./transfer-chains.ts";

/**
 * The opening of an end-to-end file on the payout chains (startTransferChains), for the calling file:
 * a fresh database the service's own start migrates, a temporary folder (`dirPrefix`) and the chains
 * on that database, stopped before the database is dropped.
 */
export function useTransferChains(dirPrefix: string): {
  database: TestDatabase;
  dir: string;
  chains: TransferChains;
  /** The environment of the roles as separate processes on the chains (read once the file's beforeAll has run). */
  rolesEnv(): Record<string, string>;
} {
  const database = useTestDatabase({ migrate: false });
  const dir = useTempDir(dirPrefix);
  const chains = useStarted(
    "the payout chains",
    () => startTransferChains(database.db),
    (c) => c.stop(),
  );
  const rolesEnv = () => ({
    ...sharedProcessEnv(database, dir),
    CHAINS_CONFIG: chains.chainsConfig(dir),
    TREASURY_MNEMONIC: chains.mnemonic,
    // A killed role's chain lease is taken over within this bound at most.
    INDEXER_LEASE_SECONDS: "2",
    RATE_LIMIT_PER_MINUTE: "100000",
  });
  return { database, dir, chains, rolesEnv };
}
