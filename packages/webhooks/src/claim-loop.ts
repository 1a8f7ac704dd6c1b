import type { Logger } from "@mp/core";
import { sleep } from "./result-writer.ts";
import type { WakeUp } from "./wake-up.ts";

export interface ClaimLoopOptions {
  /** How many deliveries this process may claim now (its slots free). */
  free: () => number;
  /**
   * Claims up to `free` deliveries and says how many it claimed. `ask`: something new may be due
   * (a wake, a poll, a claim that filled its slots); false when only nudges came since the last claim.
   */
  claim: (free: number, ask: boolean) => Promise<number>;
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
  let ask = true;
  while (!options.stopping()) {
    wakes.reset();
    const free = options.free();
    let full = false;
    if (free > 0) {
      try {
        full = (await options.claim(free, ask)) === free;
      } catch (error) {
        logger.warn({ err: String(error) }, "webhook claim failed");
        await sleep(1_000);
      }
    }
    if (full || wakes.woken()) {
      ask = full || wakes.asked();
      continue;
    }
    ask = (await wakes.wait(options.pollIntervalMs)) || wakes.asked();
  }
}
