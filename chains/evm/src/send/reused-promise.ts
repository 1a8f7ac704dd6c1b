/**
 * `read()` reused for `ttlMs` (a node or database answer that many callers ask for at once), read
 * again after a failure instead of repeating it; reset() drops it (a new pass reads afresh).
 */
export function reusedFor<T>(ttlMs: number, read: () => Promise<T>): { get(): Promise<T>; reset(): void } {
  let held: { at: number; value: Promise<T> } | undefined;
  return {
    get() {
      if (held && performance.now() - held.at < ttlMs) return held.value;
      const value = read();
      const entry = { at: performance.now(), value };
      held = entry;
      value.catch(() => {
        if (held === entry) held = undefined;
      });
      return value;
    },
    reset() {
      held = undefined;
    },
  };
}
