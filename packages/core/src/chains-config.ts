import { z } from "zod";
import { type ChainId, chainIdSchema, isEvmChain } from "./chains.ts";
import { loadJsonConfigFile, parseConfigValue } from "./config-file.ts";
import { ConfigError } from "./errors.ts";

/** `off`, or the JSON-RPC method an EVM node traces a whole block with (parity-style or geth's callTracer). */
export const EVM_TRACE_METHODS = ["off", "trace_block", "debug_traceBlockByNumber"] as const;
export type EvmTraceMethod = (typeof EVM_TRACE_METHODS)[number];

const tokenSchema = z.object({
  asset: z.string().min(1),
  address: z.string().min(1),
  decimals: z.number().int().min(0).max(36),
});

export const chainConfigSchema = z.object({
  rpcUrl: z.string().url(),
  confirmations: z.number().int().min(1).max(10_000).optional(),
  pollIntervalMs: z.number().int().min(50).max(600_000).optional(),
  startHeight: z.number().int().min(0).optional(),
  /** Upper bound of blocks per scan request; the EVM adapter adapts below it. */
  batchSize: z.number().int().min(1).max(100_000).optional(),
  network: z.enum(["mainnet", "testnet", "regtest"]).optional(),
  tokens: z.array(tokenSchema).optional(),
  /** Local sandbox only: a funded key the faucet sends from (hex for EVM). Never set in production. */
  faucetPrivateKey: z.string().optional(),
  /** EVM: how to read native coin moved by contracts (internal calls), if the node offers traces. */
  traces: z.enum(EVM_TRACE_METHODS).optional(),
});

/**
 * Partial: zod 4's `z.record` over an enum demands every key, but a chain absent from the file is
 * meant to stay absent (addresses, deposits disabled, no indexer). Unknown chain names still fail.
 */
export const chainsConfigSchema = z.object({
  chains: z.partialRecord(chainIdSchema, chainConfigSchema),
});

export type ChainConfigInput = z.infer<typeof chainConfigSchema>;
export type TokenConfig = z.infer<typeof tokenSchema>;

/** A chain's configuration with every default applied. */
export interface ChainConfig {
  chain: ChainId;
  rpcUrl: string;
  confirmations: number;
  pollIntervalMs: number;
  startHeight: number;
  batchSize: number;
  network: "mainnet" | "testnet" | "regtest";
  tokens: TokenConfig[];
  faucetPrivateKey: string | undefined;
  /** EVM only; default off. */
  traces: EvmTraceMethod;
}

export type ChainsConfig = Partial<Record<ChainId, ChainConfig>>;

/**
 * How often an indexer looks for a new head when the config does not say. Half a second: a block
 * that lands just after a look waits at most this long plus one iteration, which keeps "confirmed
 * within 1 s of the confirming block" true (issue 4) at a modest RPC cost.
 */
export const DEFAULT_POLL_INTERVAL_MS = 500;

/** Confirmations required when the config does not say; Tron's 19 is its solidification depth. */
export const DEFAULT_CONFIRMATIONS: Record<ChainId, number> = {
  BASE: 12,
  ARBITRUM: 12,
  POLYGON: 64,
  CELO: 12,
  BSC: 15,
  ETHEREUM: 12,
  OPTIMISM: 12,
  SOLANA: 32,
  BITCOIN: 2,
  TRON: 19,
};

export function resolveChainConfig(chain: ChainId, input: ChainConfigInput): ChainConfig {
  if ((input.traces ?? "off") !== "off" && !isEvmChain(chain)) {
    throw new ConfigError("CHAINS_CONFIG", `${chain}.traces: only EVM chains are traced`);
  }
  return {
    chain,
    rpcUrl: input.rpcUrl,
    confirmations: input.confirmations ?? DEFAULT_CONFIRMATIONS[chain],
    pollIntervalMs: input.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS,
    startHeight: input.startHeight ?? 0,
    batchSize: input.batchSize ?? 2000,
    network: input.network ?? "mainnet",
    tokens: input.tokens ?? [],
    faucetPrivateKey: input.faucetPrivateKey,
    traces: input.traces ?? "off",
  };
}

export function parseChainsConfig(raw: unknown, setting = "CHAINS_CONFIG"): ChainsConfig {
  return resolveChains(parseConfigValue(setting, raw, chainsConfigSchema, "chains config"));
}

function resolveChains(input: z.infer<typeof chainsConfigSchema>): ChainsConfig {
  const out: ChainsConfig = {};
  for (const [chain, value] of Object.entries(input.chains)) {
    if (value) out[chain as ChainId] = resolveChainConfig(chain as ChainId, value);
  }
  return out;
}

export function loadChainsConfigFile(path: string): ChainsConfig {
  return resolveChains(loadJsonConfigFile("CHAINS_CONFIG", path, chainsConfigSchema, "chains config"));
}
