import { ChainMisconfiguredError, type ChainsConfig, type Logger } from "@mp/core";
import type { TreasuryKeys } from "@mp/custody";
import type { Database } from "@mp/db";
import type { FamilyOf } from "./chain-family-module.ts";
import type { ChainSender } from "./chain-sender.ts";
import type { TreasuryAddress } from "./treasury-store.ts";

/** One ChainSender per configured chain, each built by its family's record (`familyOf`). */
export function createChainSenders(options: {
  chains: ChainsConfig;
  keys: TreasuryKeys;
  db: Database;
  logger: Logger;
  familyOf: FamilyOf;
  fetch?: typeof globalThis.fetch;
}): ChainSender[] {
  return Object.values(options.chains).flatMap((config) =>
    config
      ? [
          options.familyOf(config.chain).createSender({
            config,
            keys: options.keys,
            db: options.db,
            logger: options.logger.child({ chain: config.chain }),
            ...(options.fetch ? { fetch: options.fetch } : {}),
          }),
        ]
      : [],
  );
}

/**
 * The senders whose node offers what they cannot work without (ChainSender.verifyNode, docs/chains.md
 * "Node requirements"), checked once at start. A chain whose node lacks a capability is left out with an
 * error naming it (chain_misconfigured): its sends stay queued, the other chains go on. A node that
 * cannot be asked now (down, slow) is kept: its passes retry.
 */
export async function verifiedSenders(senders: readonly ChainSender[], logger: Logger): Promise<ChainSender[]> {
  const checks = await Promise.all(
    senders.map(async (sender) => {
      try {
        await sender.verifyNode?.();
        return true;
      } catch (error) {
        if (error instanceof ChainMisconfiguredError) {
          logger.error(
            { chain: sender.chain, code: error.code, err: error.message },
            "chain misconfigured: its node lacks what the sender needs; its sends stay queued",
          );
          return false;
        }
        logger.warn({ chain: sender.chain, err: String(error) }, "could not check the chain's node at start");
        return true;
      }
    }),
  );
  return senders.filter((_, i) => checks[i]);
}

/** The treasury's send address of each configured chain (Bitcoin: receive address 0; change is the sender's). */
export function treasurySendAddresses(keys: TreasuryKeys, chains: ChainsConfig, familyOf: FamilyOf): TreasuryAddress[] {
  return Object.values(chains).flatMap((config) => {
    if (!config) return [];
    // The key every family signs its treasury sends with: its treasury key (branch 0, index 0).
    const key = keys.key(familyOf(config.chain).family);
    return [{ chain: config.chain, purpose: "send" as const, path: key.path, address: key.address }];
  });
}
