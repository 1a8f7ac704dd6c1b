import type { Queryable } from "@mp/db";

/** A merchant's return policy for money that is the payer's (docs/returns.md); `credit` is the default. */
export const RETURN_POLICIES = ["credit", "return"] as const;
export type ReturnPolicy = (typeof RETURN_POLICIES)[number];

/**
 * The merchant's return policy, set first when `policy` is given (the CLI's `merchants
 * return-policy` and the dashboard's owner route). Undefined for an unknown merchant. `before` is the
 * policy it had (for the audit of a change).
 */
export async function merchantReturnPolicy(
  sql: Queryable,
  merchantId: string,
  policy?: ReturnPolicy,
): Promise<{ policy: ReturnPolicy; before: ReturnPolicy } | undefined> {
  const { rows } = await sql.query<{ return_policy: ReturnPolicy; before: ReturnPolicy }>(
    policy === undefined
      ? "SELECT return_policy, return_policy AS before FROM merchants WHERE id = $1"
      : `UPDATE merchants m SET return_policy = $2 FROM (SELECT return_policy FROM merchants WHERE id = $1 FOR UPDATE) old
          WHERE m.id = $1 RETURNING m.return_policy, old.return_policy AS before`,
    policy === undefined ? [merchantId] : [merchantId, policy],
  );
  const row = rows[0];
  return row && { policy: row.return_policy, before: row.before };
}
