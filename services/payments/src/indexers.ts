import { CHAIN_IDS, type ChainId, type ChainsConfig, ConfigError, type Logger } from "@mp/core";
import { createEvmKeyStore, createWatchSet } from "@mp/custody";
import { createDatabase, createLeaseKeeper, type Database } from "@mp/db";
import { createIndexer, createIndexerMetrics } from "@mp/indexer";
import type { AddressScreening, RateProvider } from "@mp/providers";
import type { Registry } from "prom-client";
import { createChainAdapter } from "./chain-adapters.ts";

/** `--chains BASE,SOLANA`: the chains this process indexes; every name must be a configured chain. */
export function selectChains(chains: ChainsConfig, filter: string | undefined): ChainId[] {
  const configured = CHAIN_IDS.filter((chain) => chains[chain] !== undefined);
  if (filter === undefined) return configured;
  const wanted = filter
    .split(",")
    .map((name) => name.trim().toUpperCase())
    .filter((name) => name.length > 0);
  for (const name of wanted) {
    if (!(CHAIN_IDS as readonly string[]).includes(name)) {
      throw new ConfigError("--chains", `unknown chain ${name}; chains are ${CHAIN_IDS.join(", ")}`);
    }
    if (!configured.includes(name as ChainId)) {
      throw new ConfigError("--chains", `${name} is not in CHAINS_CONFIG, so it cannot be indexed`);
    }
  }
  return configured.filter((chain) => wanted.includes(chain));
}

/**
 * One indexer per selected chain, each in its own loop, each leading its chain under a lease of the
 * process's one lease keeper: processes indexing the same chains share them (a standby takes over
 * a chain whose leader died, hung or handed it over), and every write is fenced (issue 19).
 */
export async function startIndexers(options: {
  db: Database;
  logger: Logger;
  chains: ChainsConfig;
  selected: ChainId[];
  rates: RateProvider;
  /** Every deposit's sender is screened before it is credited (docs/sanctions.md). */
  screening: AddressScreening;
  metrics: Registry;
  /** INDEXER_LEASE_SECONDS: the leadership bound. */
  leaseSeconds: number;
}): Promise<{ stop(): Promise<void> }> {
  const { db, logger, chains, selected, rates } = options;
  const metrics = createIndexerMetrics(options.metrics);
  // The keeper pins one connection (its liveness lock, renewals): from a pool of its own, so it
  // never waits behind the pool that serves requests and writes deposits.
  const lockDb = createDatabase({ connectionString: db.connectionString, engine: db.engine, max: 2, logger });
  const leases = createLeaseKeeper({ db: lockDb, role: "indexer", seconds: options.leaseSeconds, logger });
  // Every chain is wanted from the first heartbeat on, so the fair share counts them all.
  for (const chain of selected) leases.want(`indexer:${chain}`);
  // The EVM chains' watch sets hold each address once for all of them (a wallet's is the same on each).
  const evmKeys = createEvmKeyStore();
  const running = selected.map((chain) => {
    const config = chains[chain];
    if (!config) throw new ConfigError("--chains", `${chain} is not configured`);
    const indexer = createIndexer({
      db,
      adapter: createChainAdapter(config),
      config,
      watch: createWatchSet(db, chain, { evmKeys }),
      rates,
      screening: options.screening,
      // Not a child logger bound to the chain: the indexer names its chain on every line itself,
      // and pino does not merge keys, so a binding made each line carry "chain" twice.
      logger,
      metrics,
      leases,
    });
    const loop = indexer.start().catch((error: unknown) => {
      logger.error({ chain, err: String(error) }, "indexer stopped on an error");
    });
    return { indexer, loop };
  });
  logger.info({ chains: selected, holder: leases.holder, leaseSeconds: leases.seconds }, "indexers started");
  return {
    async stop() {
      await Promise.all(running.map((r) => r.indexer.stop()));
      await Promise.all(running.map((r) => r.loop));
      await leases.stop();
      await lockDb.close();
    },
  };
}
