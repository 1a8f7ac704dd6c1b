import type { Queryable } from "@mp/db";

/** Whose a KYC review is: the merchant and the customer of each submission (plain columns only). */
export interface ReviewContext {
  merchant: { id: string; name: string };
  customer: { id: string; name: string; email: string | null };
}

/** The merchant and customer of each of `submissionIds`, by submission id. */
export async function reviewContexts(sql: Queryable, submissionIds: string[]): Promise<Map<string, ReviewContext>> {
  if (submissionIds.length === 0) return new Map();
  const result = await sql.query<{
    submission_id: string;
    merchant_id: string;
    merchant_name: string;
    customer_id: string;
    customer_name: string;
    email: string | null;
  }>(
    `SELECT s.id AS submission_id, m.id AS merchant_id, m.name AS merchant_name, c.id AS customer_id,
       COALESCE(c.business_name, NULLIF(concat_ws(' ', c.first_name, c.last_name), ''), c.email, c.id::text)
         AS customer_name,
       c.email
     FROM verification_submissions s
     JOIN customers c ON c.id = s.customer_id
     JOIN merchants m ON m.id = s.merchant_id
     WHERE s.id = ANY($1::uuid[])`,
    [submissionIds],
  );
  return new Map(
    result.rows.map((row) => [
      row.submission_id,
      {
        merchant: { id: row.merchant_id, name: row.merchant_name },
        customer: { id: row.customer_id, name: row.customer_name, email: row.email },
      },
    ]),
  );
}
