/**
 * Awaits every one of `pending` and answers their values in order, or, once all have settled, throws
 * the first failure in that order. For statements sent together on one connection (a later one then
 * failed only because the transaction had aborted: the first failure is the cause) and for
 * transactions run side by side (none is left running behind the failure). No rejection is left
 * unhandled.
 */
export async function settleInOrder<T extends readonly unknown[]>(
  ...pending: { [K in keyof T]: Promise<T[K]> }
): Promise<T> {
  const settled = await Promise.allSettled(pending);
  for (const result of settled) if (result.status === "rejected") throw result.reason;
  return settled.map((result) => (result as PromiseFulfilledResult<unknown>).value) as unknown as T;
}
