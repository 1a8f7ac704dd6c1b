/**
 * `build(started)`, stopping `started` if it throws before the error goes on: a fixture that fails
 * half-way (a deploy, a funding, an indexer's first pass) leaves no node or process behind.
 */
export async function stopIfThrows<S extends { stop(): Promise<void> }, T>(
  started: S,
  build: (started: S) => Promise<T>,
): Promise<T> {
  try {
    return await build(started);
  } catch (error) {
    await started.stop();
    throw error;
  }
}
