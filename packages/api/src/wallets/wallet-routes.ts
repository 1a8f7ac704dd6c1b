import { paginationQuery } from "../http/pagination.ts";
import { defineGetRoute, defineListRoute } from "../http/read-routes.ts";
import { defineRoute } from "../http/route.ts";
import { pageSchema } from "../openapi/page-schema.ts";
import {
  createWalletBody,
  depositAddressResource,
  listWalletsQuery,
  walletIdParams,
  walletResource,
} from "./wallet-schemas.ts";
import { createWallet, findDepositAddress, findWallet, listWallets } from "./wallet-store.ts";

export const createWalletRoute = defineRoute({
  method: "post",
  path: "/v1/wallets",
  operationId: "createWallet",
  summary:
    "Create a wallet with one receive address on each of the ten chains (422 customer_not_verified for a rejected customer)",
  tag: "Wallets",
  auth: true,
  idempotent: true,
  writesOnlyThroughSql: true,
  body: createWalletBody,
  response: walletResource,
  successStatus: 201,
  errorStatuses: [404, 409, 422],
  // The slot and its addresses are settled before the transaction (WalletSlots.reserve).
  prepare: ({ merchant, deps }) => deps.walletSlots.reserve(merchant.merchantId),
  async handler({ merchant, body, sql, prepared, idempotencyKey }) {
    const wallet = await createWallet(sql, {
      merchantId: merchant.merchantId,
      customerId: body.customer_id,
      label: body.label,
      slot: prepared.slot,
      addresses: prepared.addresses,
      idempotencyKey,
    });
    return { status: 201, data: wallet, message: "Wallet created" };
  },
});

export const listWalletsRoute = defineListRoute({
  path: "/v1/wallets",
  operationId: "listWallets",
  summary:
    "List wallets with their receive addresses; filter by customer, chain, status, or search (q) label/address/id",
  tag: "Wallets",
  query: paginationQuery.extend(listWalletsQuery.shape),
  response: pageSchema(walletResource),
  list: ({ merchant, query, sql }) => listWallets(sql, merchant.merchantId, query),
});

export const getWalletRoute = defineGetRoute({
  path: "/v1/wallets/{id}",
  operationId: "getWallet",
  summary: "Retrieve one wallet",
  tag: "Wallets",
  params: walletIdParams,
  response: walletResource,
  errorStatuses: [404],
  notFound: "Wallet",
  find: ({ merchant, params, sql }) => findWallet(sql, merchant.merchantId, params.id),
});

export const getAddressRoute = defineGetRoute({
  path: "/v1/addresses/{id}",
  operationId: "getDepositAddress",
  summary: "Retrieve one deposit address (errors use the nested form)",
  tag: "Wallets",
  nestedErrors: true,
  params: walletIdParams,
  response: depositAddressResource,
  errorStatuses: [404],
  notFound: "Address",
  find: ({ merchant, params, sql }) => findDepositAddress(sql, merchant.merchantId, params.id),
});

export const walletRoutes = [createWalletRoute, listWalletsRoute, getWalletRoute, getAddressRoute];
