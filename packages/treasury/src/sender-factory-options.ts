import type { ChainConfig, Logger } from "@mp/core";
import type { TreasuryKeys } from "@mp/custody";
import type { Database } from "@mp/db";

/** What every family's sender is built from (ChainFamilyModule.createSender). */
export interface SenderFactoryOptions {
  config: ChainConfig;
  keys: TreasuryKeys;
  db: Database;
  logger: Logger;
  fetch?: typeof globalThis.fetch;
}
