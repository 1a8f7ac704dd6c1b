import { paginationQuery } from "../http/pagination.ts";
import { defineGetRoute, defineListRoute } from "../http/read-routes.ts";
import { pageSchema } from "../openapi/page-schema.ts";
import { chainHeads } from "./chain-heads.ts";
import { depositIdParams, depositResource, listDepositsQuery } from "./deposit-schemas.ts";
import { findDeposit, listDeposits } from "./deposit-store.ts";

export const listDepositsRoute = defineListRoute({
  path: "/v1/deposits",
  operationId: "listDeposits",
  summary: "List deposits received by the merchant's wallets, newest first",
  tag: "Deposits",
  query: paginationQuery.extend(listDepositsQuery.shape),
  response: pageSchema(depositResource),
  errorStatuses: [503],
  list: async ({ merchant, query, sql, deps }) =>
    listDeposits(sql, merchant.merchantId, query, await chainHeads(deps.indexerStates)),
});

export const getDepositRoute = defineGetRoute({
  path: "/v1/deposits/{id}",
  operationId: "getDeposit",
  summary: "Retrieve one deposit",
  tag: "Deposits",
  params: depositIdParams,
  response: depositResource,
  errorStatuses: [404, 503],
  notFound: "Deposit",
  find: async ({ merchant, params, sql, deps }) =>
    findDeposit(sql, merchant.merchantId, params.id, await chainHeads(deps.indexerStates)),
});

export const depositRoutes = [listDepositsRoute, getDepositRoute];
