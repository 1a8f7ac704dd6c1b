import { type ChainId, silentLogger } from "@mp/core";
import type { Database } from "@mp/db";
import type { ChainSender } from "../../src/chain-sender.ts";
import { createSendPipeline, type SendPipeline, type SendPipelineOptions } from "../../src/send-pipeline.ts";

/**
 * The send pipelines of one family's test file: each on one sender, two confirmations and a 2 s
 * lease (a crashed signer's lease lapses quickly). `db` is read when a pipeline starts (the test
 * database is made in beforeAll); `stopAll` goes in afterEach, or mid-test to play a crash.
 */
export function testPipelines(chain: ChainId, db: () => Database) {
  const started: SendPipeline[] = [];
  return {
    start(sender: ChainSender, options: Pick<SendPipelineOptions, "pollIntervalMs"> = {}): SendPipeline {
      const confirmations: SendPipelineOptions["confirmations"] = { [chain]: 2 };
      const p = createSendPipeline({
        db: db(),
        senders: [sender],
        logger: silentLogger(),
        confirmations,
        leaseSeconds: 2,
        ...options,
      });
      started.push(p);
      return p;
    },
    /** Stops them one after the other (a stopping keeper hands its lease to a live one). */
    async stopAll(): Promise<void> {
      for (const p of started.splice(0)) await p.stop();
    },
  };
}
