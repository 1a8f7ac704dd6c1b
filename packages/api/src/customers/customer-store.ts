import { randomUUID } from "node:crypto";
import { ConflictError } from "@mp/core";
import { insertReturning, type Queryable, queryNamed, SqlState, sqlState } from "@mp/db";
import { appendResourceEvent } from "@mp/events";
import { defineListQuery } from "../shared/list-page.ts";
import { type RowOf, resourceTable } from "../shared/resource-row.ts";
import type { CreateCustomerBody, CustomerResource } from "./customer-schemas.ts";

type CustomerRow = RowOf<CustomerResource, "created_at" | "updated_at">;

const COLUMNS = `id, type, first_name, last_name, business_name, email, external_reference, status,
  tier_1_complete, tier_2_complete, capabilities, rejection_reasons, created_at, updated_at`;

const CUSTOMER_BY_ID = {
  name: "customer_by_id",
  text: `SELECT ${COLUMNS} FROM customers WHERE merchant_id = $1 AND id = $2`,
};

const CUSTOMERS = resourceTable<CustomerRow>({ from: "customers", columns: COLUMNS });

export const toCustomerResource: (row: CustomerRow) => CustomerResource = CUSTOMERS.toResource;

export async function insertCustomer(
  sql: Queryable,
  merchantId: string,
  input: CreateCustomerBody,
  idempotencyKey?: string,
): Promise<CustomerResource> {
  try {
    const row = await insertReturning<CustomerRow>(
      sql,
      `INSERT INTO customers (id, merchant_id, type, first_name, last_name, business_name, email, external_reference)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING ${COLUMNS}`,
      [
        randomUUID(),
        merchantId,
        input.type,
        input.first_name ?? null,
        input.last_name ?? null,
        input.business_name ?? null,
        input.email ?? null,
        input.external_reference ?? null,
      ],
    );
    const customer = toCustomerResource(row);
    await appendResourceEvent(sql, merchantId, "customer.created", customer, idempotencyKey);
    return customer;
  } catch (error) {
    if (sqlState(error) === SqlState.uniqueViolation) {
      throw new ConflictError("A customer with this external_reference already exists");
    }
    throw error;
  }
}

/** One customer of this merchant, or undefined (another merchant's id looks exactly like a missing one). */
export async function findCustomer(
  sql: Queryable,
  merchantId: string,
  customerId: string,
): Promise<CustomerResource | undefined> {
  const result = await queryNamed<CustomerRow>(sql, CUSTOMER_BY_ID, [merchantId, customerId]);
  const row = result.rows[0];
  return row ? toCustomerResource(row) : undefined;
}

export interface CustomerFilters {
  external_reference?: string | undefined;
  type?: string | undefined;
  status?: string | undefined;
  created_from?: string | undefined;
  created_to?: string | undefined;
}

/** This merchant's customers, newest first. */
export const listCustomers = defineListQuery(CUSTOMERS, "merchant_id", (where, filters: CustomerFilters) =>
  where.equal(filters, "external_reference", "type", "status").createdWithin(filters),
);

/**
 * Provisioning finished at the KYC provider: PROVISIONING -> NOT_STARTED, once, with its
 * `customer.status_changed` event (so `sql` is a transaction).
 */
export async function markCustomerProvisioned(sql: Queryable, customerId: string, profileId: string): Promise<boolean> {
  const result = await sql.query<CustomerRow & { merchant_id: string }>(
    `UPDATE customers SET status = 'NOT_STARTED', provider_profile_id = $2, updated_at = now()
     WHERE id = $1 AND status = 'PROVISIONING' RETURNING merchant_id, ${COLUMNS}`,
    [customerId, profileId],
  );
  const row = result.rows[0];
  if (!row) return false;
  await appendResourceEvent(sql, row.merchant_id, "customer.status_changed", toCustomerResource(row));
  return true;
}
