import { type ChainId, silentLogger } from "@mp/core";
import type { Database } from "@mp/db";
import { TEST_LEASE_SECONDS } from "../../../../test/support/test-leases.ts";
import type { ChainSender } from "../../src/chain-sender.ts";
import { createSendPipeline, type SendPipeline, type SendPipelineOptions } from "../../src/send-pipeline.ts";
import { until } from "./evm-treasury.ts";

/**
 * A send pipeline as the tests run it: on `sender` alone, two confirmations on `chain`, and a 2 s
 * lease (a crashed signer's lease lapses quickly).
 */
export function testSendPipeline(
  db: Database,
  chain: ChainId,
  sender: ChainSender,
  options: Pick<SendPipelineOptions, "pollIntervalMs"> = {},
): SendPipeline {
  const confirmations: SendPipelineOptions["confirmations"] = { [chain]: 2 };
  return createSendPipeline({
    db,
    senders: [sender],
    logger: silentLogger(),
    confirmations,
    leaseSeconds: TEST_LEASE_SECONDS,
    ...options,
  });
}

/**
 * The send pipelines of one family's test file: each on one sender, two confirmations and a 2 s
 * lease (a crashed signer's lease lapses quickly). `db` is read when a pipeline starts (the test
 * database is made in beforeAll); `stopAll` goes in afterEach, or mid-test to play a crash.
 */
export function testPipelines(chain: ChainId, db: () => Database) {
  const started: SendPipeline[] = [];
  const pipelines = {
    start(sender: ChainSender, options: Pick<SendPipelineOptions, "pollIntervalMs"> = {}): SendPipeline {
      const p = testSendPipeline(db(), chain, sender, options);
      started.push(p);
      return p;
    },
    /** Stops them one after the other (a stopping keeper hands its lease to a live one). */
    async stopAll(): Promise<void> {
      for (const p of started.splice(0)) await p.stop();
    },
    /**
     * Runs one pipeline on `sender`, one pass then `mine` (the test makes the blocks), until every
     * send of `sendIds` is confirmed, then stops it; throws with the states seen if they are not in
     * time (see until).
     */
    async runUntilConfirmed(sender: ChainSender, sendIds: readonly string[], mine: () => unknown): Promise<void> {
      const p = pipelines.start(sender);
      try {
        await until(db(), sendIds, "confirmed", async () => {
          await p.tick(chain);
          await mine();
        });
      } finally {
        started.splice(started.indexOf(p), 1);
        await p.stop();
      }
    },
  };
  return pipelines;
}
