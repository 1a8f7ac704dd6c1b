/** Runs `cycle` again and again, `pollMs` ±25% apart (jitter keeps processes from polling in step). */
export interface JitteredPoll {
  /** Runs the first cycle (once) and schedules the next; resolves when the first has run. */
  start(): Promise<void>;
  /** Schedules nothing more and waits for a cycle under way. */
  stop(): Promise<void>;
}

export function createJitteredPoll(pollMs: number, cycle: () => Promise<void>): JitteredPoll {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let firstCycle: Promise<void> | undefined;
  let stopped = false;
  const run = (): Promise<void> =>
    cycle().finally(() => {
      running = undefined;
      schedule();
    });
  const schedule = () => {
    if (stopped) return;
    const delay = pollMs * (0.75 + Math.random() * 0.5);
    timer = setTimeout(() => {
      running = run();
    }, delay);
    timer.unref();
  };
  return {
    start() {
      if (!firstCycle) firstCycle = running = run();
      return firstCycle;
    },
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running;
    },
  };
}
