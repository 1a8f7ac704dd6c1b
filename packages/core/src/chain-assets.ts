import type { ChainId } from "./chains.ts";

/** Each chain's native coin: the asset a deposit of the chain's own currency is recorded as. */
export const NATIVE_ASSETS: Readonly<Record<ChainId, { asset: string; decimals: number }>> = {
  BASE: { asset: "ETH", decimals: 18 },
  ARBITRUM: { asset: "ETH", decimals: 18 },
  POLYGON: { asset: "POL", decimals: 18 },
  CELO: { asset: "CELO", decimals: 18 },
  BSC: { asset: "BNB", decimals: 18 },
  ETHEREUM: { asset: "ETH", decimals: 18 },
  OPTIMISM: { asset: "ETH", decimals: 18 },
  SOLANA: { asset: "SOL", decimals: 9 },
  BITCOIN: { asset: "BTC", decimals: 8 },
  TRON: { asset: "TRX", decimals: 6 },
};

/**
 * The USD stablecoins: exactly 1 in the sandbox rates; in production priced from the market like
 * any asset, rounded to 1 within the par band (packages/providers stablecoin-par.ts).
 */
export const USD_STABLECOINS: ReadonlySet<string> = new Set(["USDC", "USDT", "USDC.e"]);
