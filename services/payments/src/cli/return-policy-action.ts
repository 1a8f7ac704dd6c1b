import { NotFoundError, ValidationError } from "@mp/core";
import type { Queryable } from "@mp/db";

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
  const { rows } = await db.query<{ return_policy: string }>(
    policy === undefined
      ? "SELECT return_policy FROM merchants WHERE id = $1"
      : "UPDATE merchants SET return_policy = $2 WHERE id = $1 RETURNING return_policy",
    policy === undefined ? [merchant] : [merchant, policy],
  );
  const row = rows[0];
  if (!row) throw new NotFoundError("Merchant");
  return row.return_policy;
}
