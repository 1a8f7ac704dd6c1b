import type { Logger } from "@mp/core";
import type { AttemptResult } from "./attempt-result.ts";

export interface ResultWriter {
  /** Queues a result; it is written with the others queued meanwhile, one transaction per batch. */
  push(result: AttemptResult): void;
  /** Writes what is queued (and waits for a write under way). */
  flush(): Promise<void>;
}

export interface ResultWriterOptions {
  write: (batch: AttemptResult[]) => Promise<void>;
  logger: Logger;
  /** Once stopping, a batch that failed is not tried again. */
  stopping: () => boolean;
  /** Called after each batch written, with its size. */
  written: (count: number) => void;
}

/** Writes results in batches: whatever came while the previous batch was being written goes next. */
export function createResultWriter(options: ResultWriterOptions): ResultWriter {
  const results: AttemptResult[] = [];
  let flushing: Promise<void> | undefined;
  const drain = async (): Promise<void> => {
    while (results.length > 0) {
      const batch = results.splice(0, results.length);
      try {
        await options.write(batch);
      } catch (error) {
        // Unwritten results are not lost work: their leases end and the deliveries are sent again.
        options.logger.warn({ err: String(error), results: batch.length }, "webhook results not written");
        if (options.stopping()) return;
        results.unshift(...batch);
        await sleep(1_000);
        continue;
      }
      options.written(batch.length);
    }
  };
  const scheduleDrain = (): Promise<void> => {
    flushing ??= drain().finally(() => {
      flushing = undefined;
    });
    return flushing;
  };
  return {
    push(result) {
      results.push(result);
      void scheduleDrain();
    },
    async flush() {
      await flushing;
      await scheduleDrain();
    },
  };
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
