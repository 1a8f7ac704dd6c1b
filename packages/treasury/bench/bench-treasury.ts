import { type ChainId, type Logger, silentLogger } from "@mp/core";
import type { Database } from "@mp/db";
import { createTestDatabase } from "@mp/db/testing";
import type { ChainSender } from "../src/chain-sender.ts";
import { createSendPipeline, type SendPipeline } from "../src/send-pipeline.ts";
import { type BitcoinTreasuryHarness, startBitcoinTreasury } from "../test/support/bitcoin-treasury.ts";
import { type EvmTreasuryHarness, startEvmTreasury } from "../test/support/evm-treasury.ts";

/** What a treasury bench runs on, opened by openBenchTreasury. */
export interface BenchTreasury<H> {
  /** A database of its own (PostgreSQL with DATABASE_URL, else embedded PGlite). */
  db: Database;
  /** The chain's treasury harness on it (node, keys, sender). */
  h: H;
  /** The send pipeline over the harness's sender; the bench ticks it, nothing starts it. */
  pipeline: SendPipeline;
  /** Stops the pipeline and the harness and drops the database (call it in `finally`). */
  close(): Promise<void>;
}

/** The treasury benches' one set-up: a fresh database, the chain's harness on it, the send pipeline. */
async function openBenchTreasury<H extends { sender(): ChainSender }>(setup: {
  poolSize?: number;
  start: (db: Database) => Promise<H>;
  stop: (h: H) => Promise<void>;
  /** Confirmations a send needs, per chain. */
  confirmations: Partial<Record<ChainId, number>>;
  /** The pipeline's logger (silent unless a bench traces). */
  logger?: Logger;
}): Promise<BenchTreasury<H>> {
  const testDb = await createTestDatabase(setup.poolSize === undefined ? {} : { poolSize: setup.poolSize });
  const db = testDb.db;
  let h: H;
  try {
    h = await setup.start(db);
  } catch (error) {
    await testDb.drop();
    throw error;
  }
  const pipeline = createSendPipeline({
    db,
    senders: [h.sender()],
    logger: setup.logger ?? silentLogger(),
    confirmations: setup.confirmations,
  });
  return {
    db,
    h,
    pipeline,
    async close() {
      try {
        await pipeline.stop();
        await setup.stop(h);
      } finally {
        await testDb.drop();
      }
    },
  };
}

/** The Bitcoin test node's treasury, sends confirmed at 2 blocks. */
export function openBitcoinBenchTreasury(): Promise<BenchTreasury<BitcoinTreasuryHarness>> {
  return openBenchTreasury({
    start: startBitcoinTreasury,
    stop: (h) => h.stop(),
    confirmations: { BITCOIN: 2 },
  });
}

/**
 * anvil's BASE treasury (funded with `funds`, default as startEvmTreasury's) on a database of 10
 * connections. Interval mining (1 s blocks), as on a real chain: a broadcast does not wait for its block.
 */
export function openEvmBenchTreasury(
  confirmations: number,
  funds: { eth?: bigint; usdc?: bigint } = {},
  logger?: Logger,
): Promise<BenchTreasury<EvmTreasuryHarness>> {
  return openBenchTreasury({
    ...(logger ? { logger } : {}),
    poolSize: 10,
    start: (db) => startEvmTreasury(db, { ...funds, blockTimeSeconds: 1 }),
    stop: (h) => h.node.stop(),
    confirmations: { BASE: confirmations },
  });
}
