import type { ChainConfig, ChainFamily, Logger } from "@mp/core";
import type { TreasuryKeys } from "@mp/custody";
import type { Database } from "@mp/db";
import { createBitcoinSender } from "./bitcoin/bitcoin-sender.ts";
import type { ChainSender } from "./chain-sender.ts";
import { createEvmSender } from "./evm/evm-sender.ts";
import { createSolanaSender } from "./solana/solana-sender.ts";
import { createTronSender } from "./tron/tron-sender.ts";

export interface SenderFactoryOptions {
  config: ChainConfig;
  keys: TreasuryKeys;
  db: Database;
  logger: Logger;
  fetch?: typeof globalThis.fetch;
}
export type SenderFactory = (options: SenderFactoryOptions) => ChainSender;
export const SENDER_FACTORIES: Partial<Record<ChainFamily, SenderFactory>> = {
  evm: createEvmSender,
  tron: createTronSender,
  solana: createSolanaSender,
  bitcoin: createBitcoinSender,
};
