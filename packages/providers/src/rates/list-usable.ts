import type { Rate } from "./rate-provider.ts";

/**
 * The rates that could be had: one stale feed leaves the others listed (GET /v1/rates shows what is
 * usable now). When none could be had the first error is thrown, so an outage is a 503, not [].
 */
export async function listUsable(reads: readonly Promise<Rate>[]): Promise<Rate[]> {
  const settled = await Promise.allSettled(reads);
  const rates = settled.flatMap((s) => (s.status === "fulfilled" ? [s.value] : []));
  const failed = settled.find((s) => s.status === "rejected");
  if (rates.length === 0 && failed) throw failed.reason;
  return rates;
}
