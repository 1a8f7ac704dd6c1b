/** Longest wait between retries of a failing iteration. */
export const MAX_BACKOFF_MS = 30_000;

/** Delay before retry `failures` (1 = first failure): start, then doubling, capped at MAX_BACKOFF_MS. */
export function backoffDelay(failures: number, startMs: number, maxMs = MAX_BACKOFF_MS): number {
  const exponent = Math.min(Math.max(failures - 1, 0), 30);
  return Math.min(maxMs, startMs * 2 ** exponent);
}

/** A sleep that stop() can cut short. */
export interface Sleeper {
  sleep(ms: number): Promise<void>;
  wake(): void;
}

export function createSleeper(): Sleeper {
  let pending: { timer: NodeJS.Timeout; resolve: () => void } | undefined;
  return {
    sleep(ms) {
      return new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          pending = undefined;
          resolve();
        }, ms);
        pending = { timer, resolve };
      });
    },
    wake() {
      if (!pending) return;
      clearTimeout(pending.timer);
      const { resolve } = pending;
      pending = undefined;
      resolve();
    },
  };
}
