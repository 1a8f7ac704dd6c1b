import type { ChainId } from "@mp/core";
import type { AppDeps } from "../deps.ts";

/** Each indexed chain's head height: a deposit's confirmations count from it. */
export async function chainHeads(indexerStates: AppDeps["indexerStates"]): Promise<Map<ChainId, number>> {
  const heads = new Map<ChainId, number>();
  for (const state of await indexerStates()) {
    if (state.headHeight !== null) heads.set(state.chain, state.headHeight);
  }
  return heads;
}
