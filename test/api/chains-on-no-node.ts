import { type ChainsConfig, resolveChainConfig } from "@mp/core";
import type { HarnessOptions } from "../support/api-harness.ts";

/** Port 9 (discard) refuses: a chain here has no node, for tests that end the signer's sends by hand. */
const NO_NODE = "http://127.0.0.1:9";
/** USDC's contract on Base. */
export const BASE_USDC = "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913";

const CONFIGS = {
  BASE: () =>
    resolveChainConfig("BASE", { rpcUrl: NO_NODE, tokens: [{ asset: "USDC", address: BASE_USDC, decimals: 6 }] }),
  BITCOIN: () => resolveChainConfig("BITCOIN", { rpcUrl: NO_NODE, network: "regtest" }),
  SOLANA: () => resolveChainConfig("SOLANA", { rpcUrl: NO_NODE }),
};

/** The configs of `chains` (BASE with its USDC, BITCOIN on regtest, SOLANA) on no node. */
export function chainsOnNoNode(chains: ReadonlyArray<keyof typeof CONFIGS>): ChainsConfig {
  return Object.fromEntries(chains.map((chain) => [chain, CONFIGS[chain]()]));
}

/**
 * An API harness whose payouts start and stay open: its workers running (the transfer executor
 * requests the sends), BASE on no node (no send is broadcast; the test ends them, or leaves them).
 */
export function payoutsOnNoNode(): HarnessOptions {
  return { workers: true, overrides: { chains: chainsOnNoNode(["BASE"]) } };
}
