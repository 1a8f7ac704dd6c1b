import { type ChainId, NotFoundError } from "@mp/core";
import type { AppDeps } from "../deps.ts";
import { paginationQuery } from "../http/pagination.ts";
import { defineRoute } from "../http/route.ts";
import { pageSchema } from "../openapi/page-schema.ts";
import { depositIdParams, depositResource, listDepositsQuery } from "./deposit-schemas.ts";
import { findDeposit, listDeposits } from "./deposit-store.ts";

async function chainHeads(deps: AppDeps): Promise<Map<ChainId, number>> {
  const heads = new Map<ChainId, number>();
  for (const state of await deps.indexerStates()) {
    if (state.headHeight !== null) heads.set(state.chain, state.headHeight);
  }
  return heads;
}

export const listDepositsRoute = defineRoute({
  method: "get",
  path: "/v1/deposits",
  operationId: "listDeposits",
  summary: "List deposits received by the merchant's wallets, newest first",
  tag: "Deposits",
  auth: true,
  query: paginationQuery.extend(listDepositsQuery.shape),
  response: pageSchema(depositResource),
  successStatus: 200,
  errorStatuses: [503],
  async handler({ merchant, query, sql, deps }) {
    return { status: 200, data: await listDeposits(sql, merchant.merchantId, query, await chainHeads(deps)) };
  },
});

export const getDepositRoute = defineRoute({
  method: "get",
  path: "/v1/deposits/{id}",
  operationId: "getDeposit",
  summary: "Retrieve one deposit",
  tag: "Deposits",
  auth: true,
  params: depositIdParams,
  response: depositResource,
  successStatus: 200,
  errorStatuses: [404, 503],
  async handler({ merchant, params, sql, deps }) {
    const deposit = await findDeposit(sql, merchant.merchantId, params.id, await chainHeads(deps));
    if (!deposit) throw new NotFoundError("Deposit");
    return { status: 200, data: deposit };
  },
});

export const depositRoutes = [listDepositsRoute, getDepositRoute];
