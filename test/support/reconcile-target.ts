import type { ChainAsset, ChainConfig } from "@mp/core";
import type { ReconcileTarget } from "@mp/treasury";
import { familyOf } from "../../services/payments/src/chain-families.ts";

/** A chain to reconcile, read by its family's holdings reader (as the service's reconcileTargets builds it). */
export function reconcileTarget(config: ChainConfig, assets: readonly ChainAsset[]): ReconcileTarget {
  return { config, assets, reader: familyOf(config.chain).createHoldingsReader(config, assets) };
}
