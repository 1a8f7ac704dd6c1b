/**
 * `work` over every item with at most `limit` calls in flight; results in item order. The first
 * failure rejects the whole call and stops starting new work (calls already in flight finish and
 * are ignored). The one worker pool of the chain adapters (blocks, receipts, batches of slots).
 */
export async function mapBounded<T, R>(
  items: readonly T[],
  limit: number,
  work: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  if (!Number.isSafeInteger(limit) || limit < 1) throw new RangeError(`expected a positive limit, got ${limit}`);
  const results: R[] = new Array(items.length);
  let next = 0;
  let failed = false;
  const worker = async () => {
    while (!failed && next < items.length) {
      const index = next++;
      try {
        results[index] = await work(items[index] as T, index);
      } catch (error) {
        failed = true;
        throw error;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}
