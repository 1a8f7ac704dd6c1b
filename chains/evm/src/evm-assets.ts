import {
  type ChainAsset,
  type ChainConfig,
  ConfigError,
  type EvmChainId,
  isEvmChain,
  NATIVE_ASSETS,
  type TokenConfig,
} from "@mp/core";
import { getAddress, isAddress } from "viem";

/** A configured ERC-20, its contract address both as configured (checksummed) and as matched. */
export interface EvmToken {
  asset: string;
  /** EIP-55 checksummed. */
  address: string;
  /** Lowercase: how logs name the emitting contract. */
  key: string;
  decimals: number;
}

/** What the adapter and the faucet know about one EVM chain's assets, resolved once from config. */
export interface EvmAssets {
  chain: EvmChainId;
  native: ChainAsset & { address: null };
  tokens: readonly EvmToken[];
  tokenByContract: ReadonlyMap<string, EvmToken>;
  list(): ChainAsset[];
}

/**
 * The native coin comes from NATIVE_ASSETS (ETH on Base/Arbitrum/Ethereum/Optimism, POL, CELO,
 * BNB; 18 decimals), tokens from `config.tokens`: there is no default token list, because a token
 * address right on one network is someone else's contract on another, and crediting deposits of a
 * look-alike token is worse than crediting none.
 */
export function resolveEvmAssets(config: Pick<ChainConfig, "chain" | "tokens">): EvmAssets {
  const chain = config.chain;
  if (!isEvmChain(chain)) throw new ConfigError("CHAINS_CONFIG", `${chain} is not an EVM chain`);
  const native = { asset: NATIVE_ASSETS[chain].asset, address: null, decimals: NATIVE_ASSETS[chain].decimals };
  const tokens = config.tokens.map((token) => resolveToken(chain, token));
  const tokenByContract = new Map<string, EvmToken>();
  const symbols = new Set<string>([native.asset]);
  for (const token of tokens) {
    if (tokenByContract.has(token.key)) {
      throw new ConfigError("CHAINS_CONFIG", `${chain}: token contract ${token.address} is listed twice`);
    }
    if (symbols.has(token.asset))
      throw new ConfigError("CHAINS_CONFIG", `${chain}: asset ${token.asset} is listed twice`);
    tokenByContract.set(token.key, token);
    symbols.add(token.asset);
  }
  return {
    chain,
    native,
    tokens,
    tokenByContract,
    list: () => [
      { ...native },
      ...tokens.map((token) => ({ asset: token.asset, address: token.address, decimals: token.decimals })),
    ],
  };
}

function resolveToken(chain: EvmChainId, token: TokenConfig): EvmToken {
  // Strict: a mixed-case address must carry a valid EIP-55 checksum (catches typos).
  if (!isAddress(token.address)) {
    throw new ConfigError(
      "CHAINS_CONFIG",
      `${chain}: token ${token.asset} address is not an EVM address (or its checksum is wrong)`,
    );
  }
  const address = getAddress(token.address);
  return { asset: token.asset, address, key: address.toLowerCase(), decimals: token.decimals };
}
