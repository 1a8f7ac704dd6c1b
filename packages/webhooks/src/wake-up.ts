/**
 * The claim loop's idle wait: the poll interval, cut short by a wake-up. Two kinds: `wake` (NOTIFY,
 * enqueued here, slots freed that a claim lacked: something new may be due, ask the database) and
 * `nudge` (a delivery finished and its endpoint looked claimable again: worth a claim only if one
 * of the endpoints held still is when the claim runs; see delivery-worker.ts).
 */
export function createWakeUp() {
  let wakeUp: (() => void) | undefined;
  let woken = false;
  let asked = false;
  const rouse = () => {
    woken = true;
    wakeUp?.();
  };
  return {
    wake: () => {
      asked = true;
      rouse();
    },
    nudge: rouse,
    reset: () => {
      woken = false;
      asked = false;
    },
    woken: () => woken,
    /** A `wake` (not only nudges) came since the last reset. */
    asked: () => asked,
    /** Waits `ms` or until a wake-up; true when the wait ran out (a poll is due). */
    async wait(ms: number): Promise<boolean> {
      let timedOut = false;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          timedOut = true;
          resolve();
        }, ms);
        wakeUp = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      wakeUp = undefined;
      return timedOut;
    },
  };
}

export type WakeUp = ReturnType<typeof createWakeUp>;
