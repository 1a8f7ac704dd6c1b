export { type BitcoinSweeperOptions, createBitcoinSweeper } from "./bitcoin-sweeper.ts";
export { createEvmSweeper, type EvmSweeper, type EvmSweeperOptions } from "./evm-sweeper.ts";
export { createSolanaSweeper, type SolanaSweeper, type SolanaSweeperOptions } from "./solana-sweeper.ts";
export { DEFAULT_SWEEP_CONFIG, type SweepConfig, sweepConfigFromEnv } from "./sweep-config.ts";
export { createTronSweeper, type TronSweeperOptions } from "./tron-sweeper.ts";
