import { type ChainAsset, type ChainConfig, NATIVE_ASSETS, type TokenConfig } from "@mp/core";

/**
 * Stablecoin mints used when a mainnet config lists no tokens (Circle's USDC and Tether's USDT,
 * both SPL Token program mints with 6 decimals). Other networks have no canonical mints: their
 * config names them.
 */
export const SOLANA_DEFAULT_TOKENS: Readonly<Record<ChainConfig["network"], readonly TokenConfig[]>> = {
  mainnet: [
    { asset: "USDC", address: "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v", decimals: 6 },
    { asset: "USDT", address: "Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB", decimals: 6 },
  ],
  testnet: [],
  regtest: [],
};

/** What the adapter and faucet know about the chain's assets, resolved once from the config. */
export interface SolanaAssets {
  native: ChainAsset & { address: null };
  /** Configured SPL tokens by mint address. */
  tokensByMint: ReadonlyMap<string, ChainAsset & { address: string }>;
  list(): ChainAsset[];
}

export function resolveSolanaAssets(config: Pick<ChainConfig, "network" | "tokens">): SolanaAssets {
  const native = { asset: NATIVE_ASSETS.SOLANA.asset, address: null, decimals: NATIVE_ASSETS.SOLANA.decimals };
  const tokens = config.tokens.length > 0 ? config.tokens : SOLANA_DEFAULT_TOKENS[config.network];
  const tokensByMint = new Map(
    tokens.map((token) => [token.address, { asset: token.asset, address: token.address, decimals: token.decimals }]),
  );
  return {
    native,
    tokensByMint,
    list: () => [{ ...native }, ...[...tokensByMint.values()].map((token) => ({ ...token }))],
  };
}
