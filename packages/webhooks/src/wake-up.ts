/** The claim loop's idle wait: the poll interval, cut short by a wake-up (NOTIFY, a slot freed, enqueued here). */
export function createWakeUp() {
  let wakeUp: (() => void) | undefined;
  let woken = false;
  return {
    wake: () => {
      woken = true;
      wakeUp?.();
    },
    reset: () => {
      woken = false;
    },
    woken: () => woken,
    async wait(ms: number): Promise<void> {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, ms);
        wakeUp = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      wakeUp = undefined;
    },
  };
}

export type WakeUp = ReturnType<typeof createWakeUp>;
