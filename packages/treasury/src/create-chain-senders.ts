import { type ChainFamily, ChainMisconfiguredError, type ChainsConfig, chainFamily, type Logger } from "@mp/core";
import type { TreasuryKeys } from "@mp/custody";
import type { Database } from "@mp/db";
import type { ChainSender } from "./chain-sender.ts";
import { SENDER_FACTORIES, type SenderFactory } from "./sender-factories.ts";
import type { TreasuryAddress } from "./treasury-store.ts";

/**
 * One ChainSender per configured chain, each built by its family's factory (SENDER_FACTORIES). A
 * family without a sender yet is skipped with a log line: its sends stay queued, visible in
 * `payments treasury pending`, until a signer that has one starts.
 */
export function createChainSenders(options: {
  chains: ChainsConfig;
  keys: TreasuryKeys;
  db: Database;
  logger: Logger;
  fetch?: typeof globalThis.fetch;
  /** Default SENDER_FACTORIES. */
  factories?: Partial<Record<ChainFamily, SenderFactory>>;
}): ChainSender[] {
  const factories = options.factories ?? SENDER_FACTORIES;
  const senders: ChainSender[] = [];
  for (const config of Object.values(options.chains)) {
    if (!config) continue;
    const family = chainFamily(config.chain);
    const factory = factories[family];
    if (!factory) {
      options.logger.info(
        { chain: config.chain, family },
        "no treasury sender for this chain family yet: its sends stay queued",
      );
      continue;
    }
    senders.push(
      factory({
        config,
        keys: options.keys,
        db: options.db,
        logger: options.logger.child({ chain: config.chain }),
        ...(options.fetch ? { fetch: options.fetch } : {}),
      }),
    );
  }
  return senders;
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
export function treasurySendAddresses(keys: TreasuryKeys, chains: ChainsConfig): TreasuryAddress[] {
  const addresses: TreasuryAddress[] = [];
  for (const config of Object.values(chains)) {
    if (!config) continue;
    const family = chainFamily(config.chain);
    const key =
      family === "evm"
        ? keys.evm()
        : family === "tron"
          ? keys.tron()
          : family === "bitcoin"
            ? keys.bitcoin(0, 0)
            : keys.solana();
    addresses.push({ chain: config.chain, purpose: "send", path: key.path, address: key.address });
  }
  return addresses;
}
