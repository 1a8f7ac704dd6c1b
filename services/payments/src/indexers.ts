import { CHAIN_IDS, type ChainId, type ChainsConfig, ConfigError, type Logger } from "@mp/core";
import { createWatchSet } from "@mp/custody";
import { createDatabase, type Database } from "@mp/db";
import { createIndexer, createIndexerMetrics } from "@mp/indexer";
import type { RateProvider } from "@mp/providers";
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
 * One indexer per selected chain, each in its own loop. Each takes its chain's database lock
 * first, so a second process indexing the same chain waits instead of racing.
 */
export async function startIndexers(options: {
  db: Database;
  logger: Logger;
  chains: ChainsConfig;
  selected: ChainId[];
  rates: RateProvider;
  metrics: Registry;
}): Promise<{ stop(): Promise<void> }> {
  const { db, logger, chains, selected, rates } = options;
  const metrics = createIndexerMetrics(options.metrics);
  // Each indexer pins one connection for its chain lock: those come from a pool of their own.
  const lockDb = createDatabase({
    connectionString: db.connectionString,
    engine: db.engine,
    max: Math.max(1, selected.length),
    logger,
  });
  const running = selected.map((chain) => {
    const config = chains[chain];
    if (!config) throw new ConfigError("--chains", `${chain} is not configured`);
    const indexer = createIndexer({
      db,
      adapter: createChainAdapter(config),
      config,
      watch: createWatchSet(db, chain),
      rates,
      // Not a child logger bound to the chain: the indexer names its chain on every line itself,
      // and pino does not merge keys, so a binding made each line carry "chain" twice.
      logger,
      metrics,
      lockDb,
    });
    const loop = indexer.start().catch((error: unknown) => {
      logger.error({ chain, err: String(error) }, "indexer stopped on an error");
    });
    return { indexer, loop };
  });
  logger.info({ chains: selected }, "indexers started");
  return {
    async stop() {
      await Promise.all(running.map((r) => r.indexer.stop()));
      await Promise.all(running.map((r) => r.loop));
      await lockDb.close();
    },
  };
}
