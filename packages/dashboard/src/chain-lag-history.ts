import type { IndexerState } from "@mp/core";

/** One reading of a chain's lag. */
export interface LagSample {
  at: Date;
  lag: number | null;
}

/** Samples kept per chain: at one a minute, the last two hours. */
const KEEP = 120;

/**
 * The chains' lag over time, sampled in this process's memory from the indexer states (the same
 * source as /v1/chains and the indexer gauges): a restart starts the history afresh, and Prometheus
 * (deploy/grafana) keeps the long one. Sampling starts with the first read and runs on an unref'd
 * timer, so it never holds the process open.
 */
export class ChainLagHistory {
  private readonly samples = new Map<string, LagSample[]>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly read: () => Promise<IndexerState[]>,
    private readonly intervalMs = 60_000,
  ) {}

  record(states: readonly IndexerState[], at = new Date()): void {
    for (const state of states) {
      const list = this.samples.get(state.chain) ?? [];
      list.push({ at, lag: state.lag });
      if (list.length > KEEP) list.splice(0, list.length - KEEP);
      this.samples.set(state.chain, list);
    }
  }

  /** The current states (recorded as one more sample) and each chain's history, oldest first. */
  async current(): Promise<{ states: IndexerState[]; history: Map<string, LagSample[]> }> {
    const states = await this.read();
    this.record(states);
    if (!this.timer) {
      this.timer = setInterval(() => {
        this.read().then(
          (latest) => this.record(latest),
          () => undefined,
        );
      }, this.intervalMs);
      this.timer.unref();
    }
    return { states, history: this.samples };
  }
}
