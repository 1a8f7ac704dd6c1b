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
  /**
   * How long the first result of a batch waits for others (ms; 0: written at once). A batch costs a
   * statement and a round trip whatever its size: results coming back one by one made batches of a
   * few. While a result waits its delivery stays claimed (a crash then sends it again: at least once).
   */
  gatherMs?: number;
  /** A batch this large is written without waiting out `gatherMs`. */
  maxBatch?: number;
}

/**
 * Writes results in batches: whatever came while the previous batch was being written, or within
 * `gatherMs` of the first result of a batch, goes next.
 */
export function createResultWriter(options: ResultWriterOptions): ResultWriter {
  const gatherMs = options.gatherMs ?? 0;
  const maxBatch = options.maxBatch ?? Number.POSITIVE_INFINITY;
  const results: AttemptResult[] = [];
  let flushing: Promise<void> | undefined;
  /** Ends the current gathering wait early (a full batch, or a flush). */
  let gathered: (() => void) | undefined;
  let hurry = false;
  const gather = () =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(done, gatherMs);
      function done() {
        clearTimeout(timer);
        gathered = undefined;
        resolve();
      }
      gathered = done;
    });
  const drain = async (): Promise<void> => {
    while (results.length > 0) {
      if (gatherMs > 0 && !hurry && results.length < maxBatch) await gather();
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
      if (results.length >= maxBatch) gathered?.();
      void scheduleDrain();
    },
    async flush() {
      hurry = true;
      gathered?.();
      try {
        await flushing;
        await scheduleDrain();
      } finally {
        hurry = false;
      }
    },
  };
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
