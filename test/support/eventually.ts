/**
 * Polls `check` until it returns a value (not undefined) or the time runs out; the one poll of the
 * suite (indexer-fixtures' `waitFor` is this with its own defaults). `check` may answer at once or
 * with a promise. `what` names the condition in the timeout's error.
 */
export async function eventually<T>(
  check: () => T | undefined | Promise<T | undefined>,
  timeoutMs = 10_000,
  intervalMs = 100,
  what = "condition",
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`${what} not met in time`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}
