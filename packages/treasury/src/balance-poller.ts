import type { ChainId, Logger } from "@mp/core";
import type { Database } from "@mp/db";
import type { ChainSender } from "./chain-sender.ts";
import { storeTreasuryBalances } from "./treasury-store.ts";

export interface BalancePollerOptions {
  db: Database;
  senders: readonly ChainSender[];
  logger: Logger;
  /** The asset's decimals from the chain config; an asset it does not know is not stored. */
  decimals(chain: ChainId, asset: string): number | undefined;
  /** Default 10 s. */
  intervalMs?: number;
}

/**
 * The signer reads what the treasury holds from each chain (ChainSender.balances(), with the keys'
 * addresses) and stores it (treasury_balances), so the CLI and /metrics of every process show the
 * balances without a key or a node connection. One chain that does not answer leaves its last
 * figures (and their observed_at) in place and the others go on.
 */
export function startBalancePoller(options: BalancePollerOptions): {
  pollOnce(): Promise<void>;
  stop(): Promise<void>;
} {
  const { db, senders, logger } = options;
  const pollChain = async (sender: ChainSender) => {
    try {
      const balances = await sender.balances();
      const rows: Array<{ asset: string; amountRaw: bigint; decimals: number }> = [];
      for (const [asset, amountRaw] of Object.entries(balances)) {
        const decimals = options.decimals(sender.chain, asset);
        if (decimals === undefined) {
          logger.warn(
            { chain: sender.chain, asset },
            "treasury balance of an asset the chain config does not list: not stored",
          );
          continue;
        }
        rows.push({ asset, amountRaw, decimals });
      }
      await storeTreasuryBalances(db, sender.chain, rows);
    } catch (error) {
      logger.warn({ chain: sender.chain, err: String(error) }, "treasury balances not read");
    }
  };
  const pollOnce = async () => {
    await Promise.all(senders.map(pollChain));
  };
  let stopped = false;
  let running: Promise<void> = Promise.resolve();
  let timer: NodeJS.Timeout | undefined;
  const loop = () => {
    running = pollOnce().finally(() => {
      if (!stopped) timer = setTimeout(loop, options.intervalMs ?? 10_000);
    });
  };
  if (senders.length > 0) loop();
  return {
    pollOnce,
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
