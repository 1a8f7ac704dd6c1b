import { randomUUID } from "node:crypto";
import { NotFoundError, ValidationError } from "@mp/core";
import { assertExternalDestination } from "@mp/custody";
import {
  disableLiquidationAddress,
  findLiquidationAddress,
  insertLiquidationAddress,
  toLiquidationAddressResource,
} from "@mp/liquidation";
import { assertTransferAllowed } from "@mp/transfers";
import { defineIdempotentPost, defineStateChangeRoute } from "../http/idempotent-routes.ts";
import { defineGetRoute, defineListRoute } from "../http/read-routes.ts";
import type { Reservation } from "../http/route.ts";
import { type QuoteAssets, resolveQuoteAssets } from "../quotes/quote-assets.ts";
import { refuseSanctionedPayee } from "../quotes/refuse-sanctioned-payee.ts";
import type { ReservedWalletSlot } from "../wallets/wallet-slots.ts";
import { createWallet } from "../wallets/wallet-store.ts";
import {
  createLiquidationAddressBody,
  drainResource,
  liquidationAddressIdParams,
  liquidationAddressResource,
  listDrainsQuery,
  listLiquidationAddressesQuery,
} from "./liquidation-schemas.ts";
import { listDrains, listLiquidationAddresses } from "./liquidation-store.ts";

/** What POST /v1/liquidation-addresses settled before its transaction: the assets and the wallet slot. */
interface PreparedAddress extends Reservation {
  assets: QuoteAssets;
  slot: ReservedWalletSlot;
}

export const createLiquidationAddressRoute = defineIdempotentPost({
  path: "/v1/liquidation-addresses",
  operationId: "createLiquidationAddress",
  summary:
    "A permanent address of ours for one asset on one network, bound to a destination (a crypto address on any configured chain and asset, or a US bank account): every confirmed deposit of the asset to it is paid out there (a drain: GET .../{id}/drains). A destination address on a sanctions list is 422 destination_sanctioned, one of ours 422 destination_internal, a customer not verified for it 422 customer_not_verified",
  tag: "Liquidation addresses",
  writesOnlyThroughSql: true,
  body: createLiquidationAddressBody,
  response: liquidationAddressResource,
  successStatus: 201,
  errorStatuses: [404, 409, 422],
  message: "Liquidation address created",
  async prepare({ merchant, body, deps }): Promise<PreparedAddress> {
    // The address's side is checked as a crypto deposit's, the destination as a quote's.
    const assets = resolveQuoteAssets(deps, {
      customer_id: body.customer_id,
      source: { method: "CRYPTO_DEPOSIT", asset: body.asset, network: body.network },
      destination: body.destination,
      source_amount: "1",
    });
    await refuseSanctionedPayee(deps, merchant.merchantId, body.destination);
    const slot = await deps.walletSlots.reserve(merchant.merchantId);
    return { assets, slot, release: () => slot.release() };
  },
  async perform({ merchant, body, sql, deps, prepared, idempotencyKey }) {
    if (body.destination.type === "CRYPTO_ADDRESS") {
      await assertExternalDestination(sql, body.destination.network, body.destination.address);
    }
    await assertTransferAllowed(sql, merchant.merchantId, body.customer_id, "BALANCE", body.destination.type);
    const id = randomUUID();
    const wallet = await createWallet(sql, {
      merchantId: merchant.merchantId,
      customerId: body.customer_id,
      label: `Liquidation address ${id}`,
      slot: prepared.slot.slot,
      addresses: prepared.slot.addresses,
      purpose: "LIQUIDATION",
    });
    const destination = wallet.destinations.find((d) => d.chain === body.network);
    if (!destination) throw new ValidationError(`network: ${body.network} is not configured`, "network");
    const { source, destination: to } = prepared.assets;
    return insertLiquidationAddress(sql, deps.encryption, {
      id,
      merchantId: merchant.merchantId,
      customerId: body.customer_id,
      walletId: wallet.id,
      destinationId: destination.id,
      chain: body.network,
      asset: source.asset,
      decimals: source.decimals,
      address: destination.address,
      destination: {
        kind: to.kind,
        asset: to.asset,
        network: to.network,
        decimals: to.decimals,
        address: to.address,
        bankAccount: to.bankAccount,
        // Travel rule: kept whatever the deposits will be worth; a drain's payout at or above the
        // threshold carries it, one without it fails (beneficiary_required).
        beneficiary: body.destination.type === "CRYPTO_ADDRESS" ? (body.destination.beneficiary ?? null) : null,
      },
      returnAddress: body.return_address ?? null,
      reference: body.reference ?? null,
      idempotencyKey,
    });
  },
});

export const listLiquidationAddressesRoute = defineListRoute({
  path: "/v1/liquidation-addresses",
  operationId: "listLiquidationAddresses",
  summary: "List liquidation addresses, newest first (filters: status, customer_id, network, reference, created range)",
  tag: "Liquidation addresses",
  item: liquidationAddressResource,
  filters: listLiquidationAddressesQuery,
  list: ({ merchant, query, sql }) => listLiquidationAddresses(sql, merchant.merchantId, query),
});

export const getLiquidationAddressRoute = defineGetRoute({
  path: "/v1/liquidation-addresses/{id}",
  operationId: "getLiquidationAddress",
  summary: "Retrieve one liquidation address",
  tag: "Liquidation addresses",
  params: liquidationAddressIdParams,
  response: liquidationAddressResource,
  notFound: "Liquidation address",
  find: async ({ merchant, params, sql }) => {
    const row = await findLiquidationAddress(sql, merchant.merchantId, params.id);
    return row ? toLiquidationAddressResource(row) : undefined;
  },
});

export const listDrainsRoute = defineListRoute({
  path: "/v1/liquidation-addresses/{id}/drains",
  operationId: "listLiquidationAddressDrains",
  summary:
    "The drains of one liquidation address, newest first (filter: state): each deposit, its valuation, fee, payout and every state with its time",
  tag: "Liquidation addresses",
  params: liquidationAddressIdParams,
  item: drainResource,
  filters: listDrainsQuery,
  errorStatuses: [404],
  list: async ({ merchant, params, query, sql }) => {
    const row = await findLiquidationAddress(sql, merchant.merchantId, params.id);
    if (!row) throw new NotFoundError("Liquidation address");
    return listDrains(sql, row.id, query);
  },
});

export const disableLiquidationAddressRoute = defineStateChangeRoute({
  path: "/v1/liquidation-addresses/{id}/disable",
  operationId: "disableLiquidationAddress",
  summary:
    "Disable an active address: deposits seen from now on are ordinary deposits credited to your balance with the deposit fee; drains already made go on. An address already disabled is 409",
  tag: "Liquidation addresses",
  params: liquidationAddressIdParams,
  response: liquidationAddressResource,
  message: "Liquidation address disabled",
  perform: ({ merchant, params, sql, idempotencyKey }) =>
    disableLiquidationAddress(sql, { merchantId: merchant.merchantId, id: params.id, idempotencyKey }),
});

export const liquidationAddressRoutes = [
  createLiquidationAddressRoute,
  listLiquidationAddressesRoute,
  getLiquidationAddressRoute,
  listDrainsRoute,
  disableLiquidationAddressRoute,
];
