import type { IndexerState } from "@mp/core";
import { Counter, Gauge, type Registry } from "prom-client";

type ChainLabel = "chain";

/** Prometheus metrics of the indexers, every one labelled by chain. */
export interface IndexerMetrics {
  headHeight: Gauge<ChainLabel>;
  indexedHeight: Gauge<ChainLabel>;
  lag: Gauge<ChainLabel>;
  /** 1 while the chain's indexer is stopped on a configuration error (GET /v1/chains says which). */
  misconfigured: Gauge<ChainLabel>;
  /**
   * Per chain and asset: deposits with their confirmations whose asset has no usable USD rate
   * (none quoted, a stale or refused feed): PENDING, uncredited, until a fresh rate exists.
   */
  depositsAwaitingRate: Gauge<ChainLabel | "asset">;
  rpcErrors: Counter<ChainLabel>;
  /** Failed iterations of the loop, whatever the cause (RPC, database, chain moving under a scan). */
  tickErrors: Counter<ChainLabel>;
  reorgs: Counter<ChainLabel>;
  depositsSeen: Counter<ChainLabel>;
  depositsConfirmed: Counter<ChainLabel>;
  depositsReversed: Counter<ChainLabel>;
}

/**
 * Registers the indexer metrics on `registry`. Calling it again with the same registry returns the
 * metrics already registered there (one set serves every chain's indexer).
 */
export function createIndexerMetrics(registry: Registry): IndexerMetrics {
  const gauge = <L extends string = ChainLabel>(
    name: string,
    help: string,
    labelNames: readonly L[] = ["chain"] as L[],
  ): Gauge<L> => {
    const existing = registry.getSingleMetric(name);
    if (existing) return existing as Gauge<L>;
    return new Gauge({ name, help, labelNames, registers: [registry] });
  };
  const counter = (name: string, help: string): Counter<ChainLabel> => {
    const existing = registry.getSingleMetric(name);
    if (existing) return existing as Counter<ChainLabel>;
    return new Counter({ name, help, labelNames: ["chain"], registers: [registry] });
  };
  return {
    headHeight: gauge("indexer_head_height", "Latest block height the chain's node reports"),
    indexedHeight: gauge("indexer_indexed_height", "Highest block whose deposits are recorded"),
    lag: gauge("indexer_lag_blocks", "Head height minus indexed height"),
    misconfigured: gauge(
      "indexer_misconfigured",
      "1 when the chain's indexer stopped on a configuration error (wrong network, refused credentials)",
    ),
    depositsAwaitingRate: gauge(
      "indexer_deposits_awaiting_rate",
      "Deposits with their confirmations waiting, uncredited, for a usable USD rate of their asset",
      ["chain", "asset"],
    ),
    rpcErrors: counter("indexer_rpc_errors_total", "Failed calls to the chain's node"),
    tickErrors: counter("indexer_tick_errors_total", "Indexer iterations that failed and were retried"),
    reorgs: counter("indexer_reorgs_total", "Reorganisations rolled back"),
    depositsSeen: counter("indexer_deposits_seen_total", "Deposits recorded as PENDING"),
    depositsConfirmed: counter("indexer_deposits_confirmed_total", "Deposits confirmed and credited"),
    depositsReversed: counter("indexer_deposits_reversed_total", "Deposits reversed by a reorganisation"),
  };
}

/**
 * `indexer_leader{chain,host,pid} 1` for each chain's leading process, and when it began to lead,
 * read from the leases at every scrape: an API process shows who indexes what, wherever the
 * indexers run. Registered once per registry.
 */
export function registerLeaderMetrics(registry: Registry, states: () => Promise<IndexerState[]>): void {
  if (registry.getSingleMetric("indexer_leader")) return;
  new Gauge({
    name: "indexer_leader",
    help: "1 for the process (host, pid) that indexes the chain now (holds its lease)",
    labelNames: ["chain", "host", "pid"],
    registers: [registry],
    async collect() {
      const latest = await states();
      this.reset();
      for (const s of latest) if (s.leader) this.set({ chain: s.chain, host: s.leader.host, pid: s.leader.pid }, 1);
    },
  });
  new Gauge({
    name: "indexer_leader_since_seconds",
    help: "Unix time at which the chain's current indexer process began to lead it",
    labelNames: ["chain"],
    registers: [registry],
    async collect() {
      // Its own read: prom-client collects the gauges of a scrape concurrently.
      const latest = await states();
      this.reset();
      for (const s of latest) if (s.leader) this.set({ chain: s.chain }, s.leader.since.getTime() / 1000);
    },
  });
}
