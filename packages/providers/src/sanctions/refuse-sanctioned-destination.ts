import { DestinationSanctionedError } from "@mp/core";
import type { Queryable } from "@mp/db";
import type { AddressScreening } from "./address-screening.ts";
import { recordSanctionsMatch, type SanctionsMatchContext } from "./sanctions-matches.ts";

export interface DestinationToScreen {
  context: Exclude<SanctionsMatchContext, "deposit">;
  chain: string;
  address: string;
  merchantId: string | null;
  reference: string | null;
  /** The request's field named in the refusal (`destination.address`, `--to`). */
  field: string;
}

/**
 * Screens a destination we were asked to pay and refuses a listed one with 422
 * destination_sanctioned, after recording the match. `db` must not be a transaction the refusal
 * rolls back: the match is kept whatever the caller does with the error.
 */
export async function refuseSanctionedDestination(
  db: Queryable,
  screening: AddressScreening,
  destination: DestinationToScreen,
): Promise<void> {
  const hit = await screening.screen(destination.address);
  if (hit === null) return;
  await recordSanctionsMatch(db, {
    context: destination.context,
    hit,
    chain: destination.chain,
    merchantId: destination.merchantId,
    reference: destination.reference,
  });
  throw new DestinationSanctionedError(destination.field, destination.address, hit.list);
}
