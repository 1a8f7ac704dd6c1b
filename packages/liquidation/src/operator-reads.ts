import type { Queryable } from "@mp/db";
import {
  LIQUIDATION_ADDRESS_COLUMNS,
  type LiquidationAddressResource,
  type LiquidationAddressRow,
  toLiquidationAddressResource,
} from "./address-store.ts";
import { type DrainResource, readDrains } from "./drain-resource.ts";

export type OperatorLiquidationAddress = LiquidationAddressResource & {
  merchant_id: string;
  /** Drains per state. */
  drains: Record<string, number>;
};

async function withCounts(q: Queryable, rows: LiquidationAddressRow[]): Promise<OperatorLiquidationAddress[]> {
  const counts = await q.query<{ id: string; state: string; n: string }>(
    `SELECT liquidation_address_id AS id, state, count(*) AS n FROM liquidation_drains
      WHERE liquidation_address_id = ANY($1::uuid[]) GROUP BY 1, 2`,
    [rows.map((r) => r.id)],
  );
  return rows.map((row) => ({
    ...toLiquidationAddressResource(row),
    merchant_id: row.merchant_id,
    drains: Object.fromEntries(counts.rows.filter((c) => c.id === row.id).map((c) => [c.state, Number(c.n)])),
  }));
}

/** The newest liquidation addresses of every merchant or one (the operator's CLI), with their drains per state. */
export async function listLiquidationAddressesForOperator(
  q: Queryable,
  filters: { merchantId?: string | undefined; status?: string | undefined; limit: number },
): Promise<OperatorLiquidationAddress[]> {
  const { rows } = await q.query<LiquidationAddressRow>(
    `SELECT ${LIQUIDATION_ADDRESS_COLUMNS} FROM liquidation_addresses
      WHERE ($1::uuid IS NULL OR merchant_id = $1) AND ($2::text IS NULL OR status = $2)
      ORDER BY created_at DESC, id DESC LIMIT $3`,
    [filters.merchantId ?? null, filters.status ?? null, filters.limit],
  );
  return withCounts(q, rows);
}

/** One address (any merchant's) and its drains, newest first (at most 1,000). */
export async function findLiquidationAddressForOperator(
  q: Queryable,
  id: string,
): Promise<(OperatorLiquidationAddress & { drain_list: DrainResource[] }) | undefined> {
  const { rows } = await q.query<LiquidationAddressRow>(
    `SELECT ${LIQUIDATION_ADDRESS_COLUMNS} FROM liquidation_addresses WHERE id = $1`,
    [id],
  );
  const [address] = await withCounts(q, rows);
  if (!address) return undefined;
  const drains = await q.query<{ id: string }>(
    "SELECT id FROM liquidation_drains WHERE liquidation_address_id = $1 ORDER BY created_at DESC, id DESC LIMIT 1000",
    [id],
  );
  return {
    ...address,
    drain_list: await readDrains(
      q,
      drains.rows.map((r) => r.id),
    ),
  };
}

/** A drain that needs an operator's eye: failed, or still awaiting funds after a failed try. */
export type FailingDrain = DrainResource & {
  merchant_id: string;
  attempts: number;
  last_error: string | null;
  next_attempt_at: string | null;
};

/**
 * The failing drains of every merchant, newest change first (at most `limit`): state failed, or
 * awaiting_funds with at least one failed try (it is retried; next_attempt_at says when).
 */
export async function listFailingDrainsForOperator(q: Queryable, limit: number): Promise<FailingDrain[]> {
  const { rows } = await q.query<{
    id: string;
    merchant_id: string;
    attempts: number;
    last_error: string | null;
    next: Date | null;
  }>(
    `SELECT id, merchant_id, attempts, last_error,
            CASE WHEN state = 'awaiting_funds' THEN next_attempt_at END AS next
       FROM liquidation_drains
      WHERE state = 'failed' OR (state = 'awaiting_funds' AND attempts > 0)
      ORDER BY updated_at DESC, id DESC LIMIT $1`,
    [limit],
  );
  const drains = await readDrains(
    q,
    rows.map((r) => r.id),
  );
  const byId = new Map(rows.map((r) => [r.id, r]));
  return drains.map((drain) => {
    const row = byId.get(drain.id);
    return {
      ...drain,
      merchant_id: row?.merchant_id ?? "",
      attempts: row?.attempts ?? 0,
      last_error: row?.last_error ?? null,
      next_attempt_at: row?.next ? row.next.toISOString() : null,
    };
  });
}
