import { defineIdempotentPost } from "../http/idempotent-routes.ts";
import { defineGetRoute, defineResourceReads } from "../http/read-routes.ts";
import {
  createWalletBody,
  depositAddressResource,
  listWalletsQuery,
  walletIdParams,
  walletResource,
} from "./wallet-schemas.ts";
import { createWallet, findDepositAddress, findWallet, listWallets } from "./wallet-store.ts";

export const createWalletRoute = defineIdempotentPost({
  path: "/v1/wallets",
  operationId: "createWallet",
  summary:
    "Create a wallet with one receive address on each of the ten chains (422 customer_not_verified for a rejected customer)",
  tag: "Wallets",
  writesOnlyThroughSql: true,
  body: createWalletBody,
  response: walletResource,
  successStatus: 201,
  errorStatuses: [404, 409, 422],
  message: "Wallet created",
  // The slot and its addresses are settled before the transaction (WalletSlots.reserve).
  prepare: ({ merchant, deps }) => deps.walletSlots.reserve(merchant.merchantId),
  perform: ({ merchant, body, sql, prepared, idempotencyKey }) =>
    createWallet(sql, {
      merchantId: merchant.merchantId,
      customerId: body.customer_id,
      label: body.label,
      slot: prepared.slot,
      addresses: prepared.addresses,
      idempotencyKey,
    }),
});

export const [listWalletsRoute, getWalletRoute] = defineResourceReads({
  path: "/v1/wallets",
  tag: "Wallets",
  item: walletResource,
  params: walletIdParams,
  notFound: "Wallet",
  list: {
    operationId: "listWallets",
    summary:
      "List wallets with their receive addresses; filter by customer, chain, status, or search (q) label/address/id",
    filters: listWalletsQuery,
    read: listWallets,
  },
  get: { operationId: "getWallet", summary: "Retrieve one wallet", read: findWallet },
});

export const getAddressRoute = defineGetRoute({
  path: "/v1/addresses/{id}",
  operationId: "getDepositAddress",
  summary: "Retrieve one deposit address (errors use the nested form)",
  tag: "Wallets",
  nestedErrors: true,
  params: walletIdParams,
  response: depositAddressResource,
  notFound: "Address",
  find: ({ merchant, params, sql }) => findDepositAddress(sql, merchant.merchantId, params.id),
});

export const walletRoutes = [createWalletRoute, listWalletsRoute, getWalletRoute, getAddressRoute];
