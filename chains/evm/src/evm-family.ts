import type { ChainFamilyModule } from "@mp/treasury/ports";
import { createEvmAdapter } from "./evm-adapter.ts";
import { resolveEvmAssets } from "./evm-assets.ts";
import { createEvmFaucet } from "./evm-faucet.ts";
import { createEvmHoldingsReader } from "./evm-holdings.ts";
import { evmKeyScheme } from "./evm-key-scheme.ts";
import { evmPaymentUri } from "./evm-payment-uri.ts";
import { evmSendCheck } from "./evm-send-check.ts";
import { createEvmSender } from "./send/evm-sender.ts";
import { createEvmSweeper } from "./sweep/evm-sweeper.ts";

/** The EVM family (Base, Ethereum, Arbitrum, Polygon, ...): viem, one treasury address for every chain. */
export const evmFamily: ChainFamilyModule = {
  family: "evm",
  keyScheme: evmKeyScheme,
  createAdapter: (config) => createEvmAdapter(config),
  assets: (config) => resolveEvmAssets(config).list(),
  createFaucet: (config) => createEvmFaucet(config),
  hasConfiguredFaucet: (config) => Boolean(config.faucetPrivateKey),
  createSender: createEvmSender,
  createSweeper: createEvmSweeper,
  createHoldingsReader: createEvmHoldingsReader,
  sendCheck: evmSendCheck,
  paymentUri: evmPaymentUri,
};
