import type { ChainFamily } from "@mp/core";
import { createBitcoinSender } from "./bitcoin/bitcoin-sender.ts";
import type { ChainSender } from "./chain-sender.ts";
import { createEvmSender } from "./evm/evm-sender.ts";
import type { SenderFactoryOptions } from "./sender-factory-options.ts";
import { createSolanaSender } from "./solana/solana-sender.ts";
import { createTronSender } from "./tron/tron-sender.ts";

export type SenderFactory = (options: SenderFactoryOptions) => ChainSender;
export const SENDER_FACTORIES: Partial<Record<ChainFamily, SenderFactory>> = {
  evm: createEvmSender,
  tron: createTronSender,
  solana: createSolanaSender,
  bitcoin: createBitcoinSender,
};
