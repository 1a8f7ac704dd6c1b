import type { ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import type { ChainConfigInput } from "@mp/core";
import type { TestDatabase } from "@mp/db/testing";
import { killHard, waitForExit } from "../cli/run-cli.ts";
import { TEST_MNEMONIC } from "../support/api-harness.ts";
import { writeChainsConfig } from "../support/chains-config-file.ts";

/**
 * Several `payments serve` processes need one database and the same secrets, as the machines of a
 * deployment would share them (a sandbox would otherwise generate its own into each DATA_DIR).
 */
export function sharedProcessEnv(database: TestDatabase, dir: string): Record<string, string> {
  return {
    DATABASE_URL: database.connectionString,
    DATA_DIR: join(dir, "data"),
    MASTER_MNEMONIC: TEST_MNEMONIC,
    ENCRYPTION_KEY: randomBytes(32).toString("base64"),
    PORT: "0",
    HOST: "127.0.0.1",
  };
}

/**
 * The signer role's environment, and its CLI's: the test database, a DATA_DIR and a chains file in
 * `dir`, the treasury's mnemonic (given to the signer alone).
 */
export function signerEnv(
  database: TestDatabase,
  dir: string,
  chains: Record<string, ChainConfigInput>,
  mnemonic: string,
): Record<string, string> {
  return {
    DATABASE_URL: database.connectionString,
    DATA_DIR: join(dir, "data"),
    CHAINS_CONFIG: writeChainsConfig(dir, chains),
    TREASURY_MNEMONIC: mnemonic,
    // A killed signer's lease is taken over within this bound at most.
    INDEXER_LEASE_SECONDS: "2",
  };
}

/** Why these tests need a PostgreSQL server, in the name vitest prints when it skips them. */
export const POSTGRES_ONLY =
  "(PostgreSQL only: the embedded database is single-host, one process owns its files; set DATABASE_URL)";

/** SIGTERM and the exit, tolerating a process that is already gone (killed by the test). */
export async function stopProcess(child: ChildProcess | undefined): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  child.kill("SIGTERM");
  await waitForExit(child, 30_000);
}

/**
 * stopProcess, then `kill -9` of the process group: whatever a slow stop left behind (an anvil of
 * the local sandbox) ends with the group.
 */
export async function stopProcessGroup(child: ChildProcess | undefined): Promise<void> {
  await stopProcess(child);
  try {
    if (child) killHard(child);
  } catch {
    // ESRCH: nothing was left.
  }
}
