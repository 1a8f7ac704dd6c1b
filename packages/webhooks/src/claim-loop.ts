import type { Logger } from "@mp/core";
import { sleep } from "./result-writer.ts";
import type { WakeUp } from "./wake-up.ts";

export interface ClaimLoopOptions {
  /** Requests in flight at once in this process. */
  concurrency: number;
  /** Claimed and not yet written (the global slots taken). */
  unwritten: () => number;
  /** Claims up to `free` deliveries (and counts them in `unwritten`). */
  claim: (free: number) => Promise<void>;
  stopping: () => boolean;
  wakes: WakeUp;
  pollIntervalMs: number;
  logger: Logger;
}

/**
 * Claims while slots are free: again at once after a claim that filled them all or a wake-up
 * meanwhile, else after the poll interval (cut short by a wake-up). A failed claim waits a second.
 */
export async function runClaimLoop(options: ClaimLoopOptions): Promise<void> {
  const { wakes, logger } = options;
  while (!options.stopping()) {
    wakes.reset();
    const free = options.concurrency - options.unwritten();
    let full = false;
    if (free > 0) {
      try {
        const before = options.unwritten();
        await options.claim(free);
        full = options.unwritten() - before === free;
      } catch (error) {
        logger.warn({ err: String(error) }, "webhook claim failed");
        await sleep(1_000);
      }
    }
    if (full || wakes.woken()) continue;
    await wakes.wait(options.pollIntervalMs);
  }
}
