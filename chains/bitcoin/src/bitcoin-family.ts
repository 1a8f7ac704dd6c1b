import { NATIVE_ASSETS } from "@mp/core";
import type { ChainFamilyModule } from "@mp/treasury/ports";
import { createBitcoinAdapter } from "./bitcoin-adapter.ts";
import { createBitcoinFaucet } from "./bitcoin-faucet.ts";
import { createBitcoinHoldingsReader } from "./bitcoin-holdings.ts";
import { bitcoinKeyScheme } from "./bitcoin-key-scheme.ts";
import { bitcoinPaymentUri } from "./bitcoin-payment-uri.ts";
import { bitcoinSendCheck } from "./bitcoin-send-check.ts";
import { BTC_ASSET } from "./block-transfers.ts";
import { createBitcoinSender } from "./send/bitcoin-sender.ts";
import { createBitcoinSweeper } from "./sweep/bitcoin-sweeper.ts";

/** The Bitcoin family: Bitcoin Core's JSON-RPC, P2WPKH coins, batched sends and sweeps. */
export const bitcoinFamily: ChainFamilyModule = {
  family: "bitcoin",
  keyScheme: bitcoinKeyScheme,
  createAdapter: (config) => createBitcoinAdapter(config),
  assets: () => [{ asset: BTC_ASSET, address: null, decimals: NATIVE_ASSETS.BITCOIN.decimals }],
  // The local sandbox node mines on a timer: no extra blocks per send.
  createFaucet: (config) => createBitcoinFaucet(config, { mineBlocks: 0 }),
  createSender: createBitcoinSender,
  createSweeper: createBitcoinSweeper,
  createHoldingsReader: (config) => createBitcoinHoldingsReader(config),
  sendCheck: bitcoinSendCheck,
  paymentUri: bitcoinPaymentUri,
};
