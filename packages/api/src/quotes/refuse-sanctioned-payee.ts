import { refuseSanctionedDestination } from "@mp/providers";
import type { AppDeps } from "../deps.ts";
import type { CreateQuoteBody } from "./quote-schemas.ts";

/**
 * Never a payout to a sanctioned address: a quote's (or a liquidation address's) crypto destination
 * is screened before any transaction, refused 422 destination_sanctioned with the match kept.
 */
export async function refuseSanctionedPayee(
  deps: Pick<AppDeps, "db" | "sanctions">,
  merchantId: string,
  destination: CreateQuoteBody["destination"],
): Promise<void> {
  if (destination.type !== "CRYPTO_ADDRESS") return;
  await refuseSanctionedDestination(deps.db, deps.sanctions, {
    context: "quote",
    chain: destination.network,
    address: destination.address,
    merchantId,
    reference: null,
    field: "destination.address",
  });
}
