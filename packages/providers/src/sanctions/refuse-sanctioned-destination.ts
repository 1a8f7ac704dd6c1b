import { DestinationSanctionedError } from "@mp/core";
import type { Database } from "@mp/db";
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
 * destination_sanctioned, after recording the match and its audit row in one transaction of its
 * own (both or neither): the match is kept whatever the caller does with the error.
 */
export async function refuseSanctionedDestination(
  db: Pick<Database, "tx">,
  screening: AddressScreening,
  destination: DestinationToScreen,
): Promise<void> {
  const hit = await screening.screen(destination.address);
  if (hit === null) return;
  const match = {
    context: destination.context,
    hit,
    chain: destination.chain,
    merchantId: destination.merchantId,
    reference: destination.reference,
  };
  await db.tx((client) => recordSanctionsMatch(client, match));
  throw new DestinationSanctionedError(destination.field, destination.address, hit.list);
}
