import { CHAIN_IDS } from "@mp/core";
import { DEPOSIT_STATUSES } from "@mp/events";
import { z } from "zod";

// The deposit's API form lives in @mp/events: the indexer and the ledger put it in events too.
export { DEPOSIT_STATUSES, type DepositResource, depositResource, HOLD_STATUSES } from "@mp/events";

export const listDepositsQuery = z.object({
  chain: z.enum(CHAIN_IDS).optional(),
  status: z.enum(DEPOSIT_STATUSES).optional(),
  tx_hash: z.string().trim().min(1).max(200).optional(),
  wallet_id: z.uuid("must be a UUID").optional(),
  customer_id: z.uuid("must be a UUID").optional(),
});

export const depositIdParams = z.object({ id: z.uuid("must be a UUID") });
