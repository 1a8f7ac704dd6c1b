import type { AppDeps } from "@mp/api";
import type { IndexerState } from "@mp/core";
import { Router } from "express";
import { ChainLagHistory, type LagSample } from "./chain-lag-history.ts";
import { userWith } from "./require-session.ts";

/** A chain this many blocks behind its head shows as lagging (the alert rule in deploy/ fires later). */
export const LAGGING_BLOCKS = 20;

function stateOf(state: IndexerState): "stopped" | "no_indexer" | "waiting" | "lagging" | "indexing" {
  if (state.stoppedError) return "stopped";
  if (!state.leader) return "no_indexer";
  if (state.lag === null) return "waiting";
  return state.lag > LAGGING_BLOCKS ? "lagging" : "indexing";
}

/**
 * `indexer_rpc_errors_total` by chain from this process's registry: the counter lives in the
 * process that indexes, so an API-only process has none (null: not known here).
 */
async function rpcErrorsByChain(metrics: AppDeps["metrics"] | undefined): Promise<Map<string, number> | null> {
  const counter = metrics?.getSingleMetric("indexer_rpc_errors_total");
  if (!counter) return null;
  const values = (await counter.get()).values;
  return new Map(values.map((v) => [String(v.labels.chain), v.value]));
}

/** One chain's row of the chains page: its indexer's state, its RPC errors (null: not known here), its lag samples. */
export function chainView(s: IndexerState, rpcErrors: number | null, samples: readonly LagSample[]) {
  return {
    chain: s.chain,
    state: stateOf(s),
    head_height: s.headHeight,
    indexed_height: s.indexedHeight,
    lag: s.lag,
    updated_at: s.updatedAt,
    stopped_error: s.stoppedError,
    leader: s.leader ? { host: s.leader.host, pid: s.leader.pid, since: s.leader.since } : null,
    rpc_errors: rpcErrors,
    lag_history: samples.map((sample) => ({ at: sample.at, lag: sample.lag })),
  };
}

/** The operator's chains: head, indexed height, lag and its recent history, RPC errors, state. */
export function operatorChainRoutes(deps: Pick<AppDeps, "indexerStates"> & Partial<Pick<AppDeps, "metrics">>): Router {
  const router = Router();
  const history = new ChainLagHistory(deps.indexerStates);
  router.get("/operator/chains", async (_req, res) => {
    userWith(res, "operator");
    const { states, history: samples } = await history.current();
    const rpcErrors = await rpcErrorsByChain(deps.metrics);
    res.json({
      lagging_blocks: LAGGING_BLOCKS,
      items: states.map((s) =>
        chainView(s, rpcErrors ? (rpcErrors.get(s.chain) ?? 0) : null, samples.get(s.chain) ?? []),
      ),
    });
  });
  return router;
}
