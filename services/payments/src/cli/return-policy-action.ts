import { NotFoundError, ValidationError } from "@mp/core";
import type { Queryable } from "@mp/db";
import { merchantReturnPolicy as storedReturnPolicy } from "@mp/transfers";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * `merchants return-policy`: the merchant's return policy (docs/returns.md), set first when `policy`
 * is given. An unknown merchant is a NotFoundError.
 */
export async function merchantReturnPolicy(
  db: Queryable,
  merchant: string,
  policy: "credit" | "return" | undefined,
): Promise<string> {
  if (!UUID.test(merchant)) throw new ValidationError("--merchant: not a merchant id", "merchant");
  const stored = await storedReturnPolicy(db, merchant, policy);
  if (!stored) throw new NotFoundError("Merchant");
  return stored.policy;
}
