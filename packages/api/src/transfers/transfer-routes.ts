import { defineGetRoute, defineResourceReads } from "../http/read-routes.ts";
import { defineRoute } from "../http/route.ts";
import { presentFunding } from "./transfer-funding.ts";
import { cancelTransfer, createTransfer, expireDueTransfers } from "./transfer-lifecycle.ts";
import {
  createTransferBody,
  listTransfersQuery,
  transferFundingResource,
  transferIdParams,
  transferResource,
} from "./transfer-schemas.ts";
import {
  findIntentOfTransfer,
  findTransfer,
  getTransfer,
  listTransfers,
  toTransferResource,
} from "./transfer-store.ts";

export const createTransferRoute = defineRoute({
  method: "post",
  path: "/v1/transfers",
  operationId: "createTransfer",
  summary:
    "Start a transfer from a quote (used once: 409; expired: 409 quote_expired). BALANCE: the merchant's available USD is held at once (422 insufficient_funds when short)",
  tag: "Transfers",
  auth: true,
  idempotent: true,
  writesOnlyThroughSql: true,
  body: createTransferBody,
  response: transferResource,
  successStatus: 201,
  errorStatuses: [404, 409, 422],
  async handler({ merchant, body, sql, deps, idempotencyKey }) {
    const transfer = await createTransfer(sql, {
      merchantId: merchant.merchantId,
      quoteId: body.quote_id,
      fundingTtlSeconds: deps.transfers.fundingTtlSeconds,
      idempotencyKey,
    });
    return { status: 201, data: toTransferResource(transfer), message: "Transfer created" };
  },
});

export const [listTransfersRoute, getTransferRoute] = defineResourceReads({
  path: "/v1/transfers",
  tag: "Transfers",
  item: transferResource,
  params: transferIdParams,
  notFound: "Transfer",
  // A transfer past its funding deadline is expired before it is read, so no read shows it awaiting funds.
  refresh: ({ merchant, deps }, id) => expireDueTransfers(deps.db, merchant.merchantId, id),
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
    await expireDueTransfers(deps.db, merchant.merchantId, params.id);
    const transfer = await findTransfer(sql, merchant.merchantId, params.id);
    const intent = transfer && (await findIntentOfTransfer(sql, transfer.id));
    return transfer && intent ? presentFunding(sql, deps.encryption, transfer, intent) : undefined;
  },
});

export const cancelTransferRoute = defineRoute({
  method: "post",
  path: "/v1/transfers/{id}/cancel",
  operationId: "cancelTransfer",
  summary:
    "Cancel a transfer before its funds arrived (or a BALANCE transfer not yet executing): its intent is canceled, what it holds is released",
  tag: "Transfers",
  auth: true,
  idempotent: true,
  writesOnlyThroughSql: true,
  params: transferIdParams,
  response: transferResource,
  successStatus: 200,
  errorStatuses: [404, 409],
  async handler({ merchant, params, sql, idempotencyKey }) {
    const transfer = await cancelTransfer(sql, {
      merchantId: merchant.merchantId,
      transferId: params.id,
      idempotencyKey,
    });
    return { status: 200, data: toTransferResource(transfer), message: "Transfer canceled" };
  },
});

export const transferRoutes = [
  createTransferRoute,
  listTransfersRoute,
  getTransferRoute,
  getTransferFundingRoute,
  cancelTransferRoute,
];
