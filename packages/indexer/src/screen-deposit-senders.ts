import type { Queryable } from "@mp/db";
import type { AddressScreening, SanctionsHit } from "@mp/providers";

/**
 * The deposits among `depositIds` whose sender a sanctions list names, with the list's hit.
 * Asked before the crediting transaction opens (the screening is in memory, but a list reload reads
 * files): the credit then goes to merchant_held with held_reason sanctions_match (confirm-deposits.ts).
 * A deposit without a known sender (some chains' transfers carry none) is not screened.
 */
export async function screenDepositSenders(
  db: Queryable,
  screening: AddressScreening | undefined,
  depositIds: readonly string[],
): Promise<Map<string, SanctionsHit>> {
  const hits = new Map<string, SanctionsHit>();
  if (screening === undefined || depositIds.length === 0) return hits;
  const { rows } = await db.query<{ id: string; from_address: string }>(
    "SELECT id, from_address FROM deposits WHERE id = ANY($1::uuid[]) AND from_address IS NOT NULL",
    [depositIds],
  );
  for (const row of rows) {
    const hit = await screening.screen(row.from_address);
    if (hit) hits.set(row.id, hit);
  }
  return hits;
}
