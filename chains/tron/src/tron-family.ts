import type { ChainFamilyModule } from "@mp/treasury/ports";
import { createTronSender } from "./send/tron-sender.ts";
import { createTronSweeper } from "./sweep/tron-sweeper.ts";
import { createTronAdapter } from "./tron-adapter.ts";
import { resolveTronAssets } from "./tron-assets.ts";
import { createTronFaucet } from "./tron-faucet.ts";
import { createTronHoldingsReader } from "./tron-holdings.ts";
import { tronKeyScheme } from "./tron-key-scheme.ts";
import { tronPaymentUri } from "./tron-payment-uri.ts";
import { tronSendCheck } from "./tron-send-check.ts";

/** The Tron family: the node's HTTP API, TRX and TRC-20 tokens. */
export const tronFamily: ChainFamilyModule = {
  family: "tron",
  keyScheme: tronKeyScheme,
  createAdapter: (config) => createTronAdapter(config),
  assets: (config) => resolveTronAssets(config).list(),
  createFaucet: (config) => createTronFaucet(config),
  createSender: createTronSender,
  createSweeper: createTronSweeper,
  createHoldingsReader: createTronHoldingsReader,
  sendCheck: tronSendCheck,
  paymentUri: tronPaymentUri,
};
