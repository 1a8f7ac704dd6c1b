import { type ChainAsset, type ChainConfig, NATIVE_ASSETS, type TokenConfig } from "@mp/core";
import { base58ToHex } from "./tron-address.ts";

/**
 * TRC-20 tokens used when a mainnet config lists none: Tether's USDT (6 decimals). Other networks
 * (Nile, Shasta, a local node) have no canonical contract: their config names it.
 */
export const TRON_DEFAULT_TOKENS: Readonly<Record<ChainConfig["network"], readonly TokenConfig[]>> = {
  mainnet: [{ asset: "USDT", address: "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t", decimals: 6 }],
  testnet: [],
  regtest: [],
};

export type TronToken = ChainAsset & { address: string };

/** What the adapter and faucet know about the chain's assets, resolved once from the config. */
export interface TronAssets {
  native: ChainAsset & { address: null };
  /** Configured tokens keyed by the 20-byte contract id in lowercase hex, as event logs name it. */
  tokensByLogAddress: ReadonlyMap<string, TronToken>;
  bySymbol(asset: string): ChainAsset | undefined;
  list(): ChainAsset[];
}

/** Throws a RangeError (the caller names the setting) when a token address is not a Tron address. */
export function resolveTronAssets(config: Pick<ChainConfig, "network" | "tokens">): TronAssets {
  const native = { asset: NATIVE_ASSETS.TRON.asset, address: null, decimals: NATIVE_ASSETS.TRON.decimals };
  const tokens = config.tokens.length > 0 ? config.tokens : TRON_DEFAULT_TOKENS[config.network];
  const tokensByLogAddress = new Map<string, TronToken>(
    tokens.map((token) => [
      base58ToHex(token.address).slice(2),
      { asset: token.asset, address: token.address, decimals: token.decimals },
    ]),
  );
  const list = (): ChainAsset[] => [{ ...native }, ...[...tokensByLogAddress.values()].map((token) => ({ ...token }))];
  return {
    native,
    tokensByLogAddress,
    bySymbol: (asset) => list().find((candidate) => candidate.asset === asset),
    list,
  };
}
