import type { BitcoinNetworkParams } from "@mp/bitcoin-protocol";
import type { ChainConfig, ChainId, Logger } from "@mp/core";
import type { TreasuryKey, TreasuryKeys } from "@mp/custody";
import type { Database } from "@mp/db";
import type { JsonRpcClient } from "@mp/rpc";
import type { AttemptStatus, StoredAttempt } from "@mp/treasury/ports";

/** What the Bitcoin sender's steps share (built once by createBitcoinSender). */
export interface BitcoinSenderContext {
  chain: ChainId;
  config: ChainConfig;
  db: Database;
  logger: Logger;
  rpc: JsonRpcClient;
  network: BitcoinNetworkParams;
  keys: TreasuryKeys;
  /** The treasury's receive key (branch 0, index 0): the sender's address. */
  receive: TreasuryKey;
  /** The key of a treasury coin's path. */
  keyAt(path: string): TreasuryKey;
  /** Where an attempt stands, found by its block (attempt-location.ts). */
  locate(attempt: StoredAttempt): Promise<AttemptStatus>;
}
