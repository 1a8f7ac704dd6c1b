import { NotFoundError } from "@mp/core";
import { paginationQuery } from "../http/pagination.ts";
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

export const listWalletsRoute = defineRoute({
  method: "get",
  path: "/v1/wallets",
  operationId: "listWallets",
  summary:
    "List wallets with their receive addresses; filter by customer, chain, status, or search (q) label/address/id",
  tag: "Wallets",
  auth: true,
  query: paginationQuery.extend(listWalletsQuery.shape),
  response: pageSchema(walletResource),
  successStatus: 200,
  async handler({ merchant, query, sql }) {
    return { status: 200, data: await listWallets(sql, merchant.merchantId, query) };
  },
});

export const getWalletRoute = defineRoute({
  method: "get",
  path: "/v1/wallets/{id}",
  operationId: "getWallet",
  summary: "Retrieve one wallet",
  tag: "Wallets",
  auth: true,
  params: walletIdParams,
  response: walletResource,
  successStatus: 200,
  errorStatuses: [404],
  async handler({ merchant, params, sql }) {
    const wallet = await findWallet(sql, merchant.merchantId, params.id);
    if (!wallet) throw new NotFoundError("Wallet");
    return { status: 200, data: wallet };
  },
});

export const getAddressRoute = defineRoute({
  method: "get",
  path: "/v1/addresses/{id}",
  operationId: "getDepositAddress",
  summary: "Retrieve one deposit address (errors use the nested form)",
  tag: "Wallets",
  auth: true,
  nestedErrors: true,
  params: walletIdParams,
  response: depositAddressResource,
  successStatus: 200,
  errorStatuses: [404],
  async handler({ merchant, params, sql }) {
    const address = await findDepositAddress(sql, merchant.merchantId, params.id);
    if (!address) throw new NotFoundError("Address");
    return { status: 200, data: address };
  },
});

export const walletRoutes = [createWalletRoute, listWalletsRoute, getWalletRoute, getAddressRoute];
