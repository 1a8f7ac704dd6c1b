import type { Queryable } from "@mp/db";
import { appendEvent } from "@mp/events";
import { readDrain } from "./drain-resource.ts";
import type { DrainFailureReason, DrainState } from "./statuses.ts";

/** The states a drain announces (awaiting_funds is its start: shown by GET, not an event). */
type AnnouncedState = Exclude<DrainState, "awaiting_funds">;

/** Appends `liquidation_address.drain.<state>` with the drain as answered, in the changing transaction. */
export async function appendDrainEvent(
  sql: Queryable,
  merchantId: string,
  drainId: string,
  state: AnnouncedState,
): Promise<void> {
  const drain = await readDrain(sql, drainId);
  if (!drain) throw new Error(`drain ${drainId} vanished in its own transaction`);
  await appendEvent(sql, {
    merchantId,
    type: `liquidation_address.drain.${state}`,
    objectType: "liquidation_drain",
    objectId: drainId,
    data: drain,
    idempotencyKey: null,
  });
}

/** Moves a drain (locked by the caller) to `state` and announces it; its reasons are kept (a refunded drain says why). */
export async function moveDrain(
  sql: Queryable,
  drain: { id: string; merchantId: string },
  state: AnnouncedState,
  set: { transferId?: string; notPaidReason?: string; failureReason?: DrainFailureReason; lastError?: string } = {},
): Promise<void> {
  await sql.query(
    `UPDATE liquidation_drains SET state = $2, transfer_id = coalesce($3, transfer_id),
            not_paid_reason = coalesce($4, not_paid_reason), failure_reason = coalesce($5, failure_reason), last_error = $6, updated_at = now()
      WHERE id = $1`,
    [
      drain.id,
      state,
      set.transferId ?? null,
      set.notPaidReason ?? null,
      set.failureReason ?? null,
      set.lastError ?? null,
    ],
  );
  await appendDrainEvent(sql, drain.merchantId, drain.id, state);
}
