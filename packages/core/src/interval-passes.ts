import type { Logger } from "./logger.ts";

/** A background loop of passes (startIntervalPasses). */
export interface IntervalPasses {
  /** Schedules no more passes and waits for the one under way. */
  stop(): Promise<void>;
}

export interface IntervalPassesOptions<T extends object> {
  /** One pass over the work that is due. */
  pass: () => Promise<T>;
  intervalMs: number;
  logger: Logger;
  /** The info line of a pass that did something (logged with the pass's result). */
  didWork: (result: T) => boolean;
  worked: string;
  /** The warning of a failed pass (the next tick tries again). */
  failed: string;
}

/**
 * Runs `pass` every `intervalMs` until stopped. Passes never overlap: a tick while one runs does
 * nothing. A pass that did something is logged at info, a failed one at warn (retried next tick).
 */
export function startIntervalPasses<T extends object>(options: IntervalPassesOptions<T>): IntervalPasses {
  const { logger } = options;
  let running: Promise<void> | undefined;
  const tick = () => {
    running ??= options
      .pass()
      .then(
        (result) => {
          // Widened for pino's overloads, which a generic result does not pick.
          const fields = Object.fromEntries(Object.entries(result));
          if (options.didWork(result)) logger.info(fields, options.worked);
        },
        (error: unknown) => logger.warn({ err: String(error) }, options.failed),
      )
      .finally(() => {
        running = undefined;
      });
  };
  const timer = setInterval(tick, options.intervalMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
