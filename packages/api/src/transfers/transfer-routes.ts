import {
  cancelTransfer,
  createTransfer,
  findIntentOfTransfer,
  findQuote,
  findTransfer,
  getTransfer,
  type ReservedFundingSlot,
  toTransferResource,
} from "@mp/transfers";
import { defineIdempotentPost, defineStateChangeRoute } from "../http/idempotent-routes.ts";
import { defineGetRoute, defineResourceReads } from "../http/read-routes.ts";
import type { Reservation } from "../http/route.ts";
import { fundingWallets } from "../wallets/funding-wallets.ts";
import { presentFunding } from "./transfer-funding.ts";
import { listTransfers } from "./transfer-reads.ts";
import {
  createTransferBody,
  listTransfersQuery,
  transferFundingResource,
  transferIdParams,
  transferResource,
} from "./transfer-schemas.ts";

/** What POST /v1/transfers reserved: a CRYPTO_DEPOSIT intent's wallet slot, when one was available. */
interface FundingSlotReservation extends Reservation {
  slot: ReservedFundingSlot | undefined;
}

export const createTransferRoute = defineIdempotentPost({
  path: "/v1/transfers",
  operationId: "createTransfer",
  summary:
    "Start a transfer from a quote (used once: 409; expired: 409 quote_expired). BALANCE: the merchant's available USD is held at once (422 insufficient_funds when short); a payout below its chain's minimum 422 amount_below_minimum",
  tag: "Transfers",
  writesOnlyThroughSql: true,
  body: createTransferBody,
  response: transferResource,
  successStatus: 201,
  errorStatuses: [404, 409, 422],
  message: "Transfer created",
  // A CRYPTO_DEPOSIT quote's address: its wallet slot and addresses are settled before the
  // transaction, as a wallet's are. None available at once (a Solana pool still being filled): the
  // intent is created without instructions and the transfer executor provisions it (spec 2.9).
  async prepare({ merchant, body, deps }): Promise<FundingSlotReservation> {
    const quote = await findQuote(deps.db, merchant.merchantId, body.quote_id);
    if (quote?.source_method !== "CRYPTO_DEPOSIT" || quote.used_at !== null) return { slot: undefined, release() {} };
    const slot = await fundingWallets(deps.walletSlots)
      .reserve(merchant.merchantId)
      .catch((error: unknown) => {
        deps.logger.warn({ err: String(error) }, "no funding address available at once; provisioned later");
        return undefined;
      });
    return { slot, release: () => slot?.release() };
  },
  async perform({ merchant, body, sql, deps, idempotencyKey, prepared }) {
    const transfer = await createTransfer(sql, {
      merchantId: merchant.merchantId,
      quoteId: body.quote_id,
      fundingTtlSeconds: deps.transfers.fundingTtlSeconds,
      idempotencyKey,
      fundingSlot: prepared.slot,
    });
    return toTransferResource(transfer);
  },
});

export const [listTransfersRoute, getTransferRoute] = defineResourceReads({
  path: "/v1/transfers",
  tag: "Transfers",
  item: transferResource,
  params: transferIdParams,
  notFound: "Transfer",
  list: {
    operationId: "listTransfers",
    summary: "List transfers, newest first (filters: status, customer_id, created range)",
    filters: listTransfersQuery,
    read: listTransfers,
  },
  get: { operationId: "getTransfer", summary: "Retrieve one transfer", read: getTransfer },
});

export const getTransferFundingRoute = defineGetRoute({
  path: "/v1/transfers/{id}/funding",
  operationId: "getTransferFunding",
  summary: "The transfer's funding details (spec 2.9): immutable economics and the intent's instructions",
  tag: "Transfers",
  params: transferIdParams,
  response: transferFundingResource,
  errorStatuses: [404],
  notFound: "Transfer",
  find: async ({ merchant, params, sql, deps }) => {
    const transfer = await findTransfer(sql, merchant.merchantId, params.id);
    const intent = transfer && (await findIntentOfTransfer(sql, transfer.id));
    return transfer && intent ? presentFunding(sql, deps.encryption, transfer, intent) : undefined;
  },
});

export const cancelTransferRoute = defineStateChangeRoute({
  path: "/v1/transfers/{id}/cancel",
  operationId: "cancelTransfer",
  summary:
    "Cancel a transfer before its funds arrived (or a BALANCE transfer not yet executing): its intent is canceled, what it holds is released",
  tag: "Transfers",
  params: transferIdParams,
  response: transferResource,
  message: "Transfer canceled",
  async perform({ merchant, params, sql, idempotencyKey }) {
    const transfer = await cancelTransfer(sql, {
      merchantId: merchant.merchantId,
      transferId: params.id,
      idempotencyKey,
    });
    return toTransferResource(transfer);
  },
});

export const transferRoutes = [
  createTransferRoute,
  listTransfersRoute,
  getTransferRoute,
  getTransferFundingRoute,
  cancelTransferRoute,
];
