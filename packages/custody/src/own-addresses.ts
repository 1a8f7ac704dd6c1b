import { CHAIN_IDS, type ChainId, chainFamily, DestinationInternalError, storedAddressKey } from "@mp/core";
import type { Queryable } from "@mp/db";

/**
 * Whether `address` is one of ours on `chain`'s family: a deposit address of any merchant (wallets
 * and transfers' funding addresses) or a treasury address. Family-wide, because an EVM address of
 * ours is ours on all seven EVM chains, whichever of them its row names.
 */
export async function ownAddressKind(
  q: Queryable,
  chain: ChainId,
  address: string,
): Promise<"deposit" | "treasury" | undefined> {
  const family = chainFamily(chain);
  const chains = CHAIN_IDS.filter((c) => chainFamily(c) === family);
  const { rows } = await q.query<{ kind: "deposit" | "treasury" }>(
    `SELECT 'treasury' AS kind FROM treasury_addresses WHERE chain = ANY($1::text[]) AND address_key = $2
     UNION ALL
     SELECT 'deposit' AS kind FROM destinations WHERE chain = ANY($1::text[]) AND address_key = $2
     LIMIT 1`,
    [chains, storedAddressKey(chain, address)],
  );
  return rows[0]?.kind;
}

/**
 * Refuses a merchant's payout to an address of ours (issue 27, finding 4: refused rather than booked
 * as an internal transfer). Paid on chain, it would stay in our custody: the indexer credits a payout
 * to a deposit address to that address's owner, but a merchant paying another merchant's customer
 * through our own treasury is a transfer we do not offer, and one to a treasury address would credit
 * nobody. Checked when quoting and again when the treasury send is requested (requestSend).
 */
export async function assertExternalDestination(q: Queryable, chain: ChainId, address: string): Promise<void> {
  const kind = await ownAddressKind(q, chain, address);
  if (kind) throw new DestinationInternalError(chain, kind);
}
