import type { ChainAsset, ChainConfig, SandboxFaucet } from "@mp/core";
import { ConfigError, chainFamily, ValidationError } from "@mp/core";
import { HttpTransport, validatedAnswer } from "@mp/rpc";
import { z } from "zod";
import { hash32Schema } from "./api-schemas.ts";
import { isTronAddress } from "./tron-address.ts";
import { resolveTronAssets } from "./tron-assets.ts";

export interface TronFaucetOptions {
  fetch?: typeof globalThis.fetch;
  timeoutMs?: number;
}

/** The Tron test node's control endpoint that pays from its funded key (no public API hands out value). */
export const TEST_TRANSFER_PATH = "/_test/transfer";

const answerSchema = z.object({ txID: hash32Schema });
/** TRC-20 amounts are uint256; TRX amounts are int64 sun. */
const MAX_SUN = 2n ** 63n - 1n;

/**
 * Sandbox deposits on the local Tron test node: `POST /_test/transfer {to, asset, amount}` makes the
 * node sign and queue, from its genesis-funded key, a real TransferContract (TRX) or a TRC-20
 * `transfer(address,uint256)` call on its USDT contract; it lands in the next block the node
 * produces (`blockIntervalMs`, or `mine()` in tests). `faucetPrivateKey` is not used: the node's
 * own key signs (as with the Solana and Bitcoin faucets), so no key travels over HTTP.
 */
export function createTronFaucet(config: ChainConfig, options: TronFaucetOptions = {}): SandboxFaucet {
  if (chainFamily(config.chain) !== "tron") {
    throw new ConfigError(`CHAINS_CONFIG.${config.chain}`, "is not a Tron chain");
  }
  const assets = resolveTronAssets(config);
  const testNode = new HttpTransport({
    url: config.rpcUrl,
    label: "Tron test node",
    setting: `CHAINS_CONFIG.${config.chain}.rpcUrl`,
    fetch: options.fetch,
    timeoutMs: options.timeoutMs,
  });

  return {
    chain: config.chain,
    assets: (): ChainAsset[] => assets.list(),
    async send(to, asset, amountRaw) {
      if (!isTronAddress(to)) throw new ValidationError("not a Tron address", "to");
      if (amountRaw <= 0n) throw new ValidationError("amount must be positive", "amount");
      const chosen = assets.bySymbol(asset);
      if (!chosen) throw new ValidationError(`asset ${asset} is not available on ${config.chain}`, "asset");
      if (chosen.address === null && amountRaw > MAX_SUN) throw new ValidationError("amount too large", "amount");

      const body = JSON.stringify({ to, asset: chosen.address ?? chosen.asset, amount: amountRaw.toString() });
      const answer = validatedAnswer(
        answerSchema,
        await testNode.post(TEST_TRANSFER_PATH, body, "transfer"),
        `Tron test node ${TEST_TRANSFER_PATH}`,
      );
      return { txHash: answer.txID.toLowerCase() };
    },
  };
}
