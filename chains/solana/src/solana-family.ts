import { NATIVE_ASSETS } from "@mp/core";
import type { ChainFamilyModule } from "@mp/treasury/ports";
import { createSolanaSender } from "./send/solana-sender.ts";
import { createSolanaAdapter } from "./solana-adapter.ts";
import { SOLANA_DEFAULT_TOKENS } from "./solana-assets.ts";
import { createSolanaFaucet } from "./solana-faucet.ts";
import { createSolanaHoldingsReader } from "./solana-holdings.ts";
import { solanaKeyScheme } from "./solana-key-scheme.ts";
import { solanaPaymentUri } from "./solana-payment-uri.ts";
import { solanaSendCheck } from "./solana-send-check.ts";
import { createSolanaSweeper } from "./sweep/solana-sweeper.ts";

/** The Solana family: @solana/web3.js, SOL and SPL tokens (a mainnet config without tokens gets the default stablecoins). */
export const solanaFamily: ChainFamilyModule = {
  family: "solana",
  keyScheme: solanaKeyScheme,
  createAdapter: (config) => createSolanaAdapter(config),
  assets: (config) => {
    const tokens = config.tokens.length > 0 ? config.tokens : SOLANA_DEFAULT_TOKENS[config.network];
    return [{ ...NATIVE_ASSETS.SOLANA, address: null }, ...tokens.map((token) => ({ ...token }))];
  },
  createFaucet: (config) => createSolanaFaucet(config),
  createSender: createSolanaSender,
  createSweeper: ({ chains, ...options }) => {
    // One Solana chain (SOLANA): its sweeper is built for it alone.
    const [chain, ...more] = chains;
    if (!chain || more.length > 0) throw new Error(`a Solana sweeper sweeps one chain, not ${chains.length}`);
    return createSolanaSweeper({ ...options, chain });
  },
  createHoldingsReader: createSolanaHoldingsReader,
  sendCheck: solanaSendCheck,
  paymentUri: solanaPaymentUri,
};
