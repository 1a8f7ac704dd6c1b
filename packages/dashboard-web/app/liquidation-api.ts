/** The liquidation addresses pages' JSON routes: the /v1 routes themselves, through the session. */

import type { LiquidationAddressResource, LiquidationDrainResource } from "./answers.ts";
import { call } from "./api.ts";
import type { Page } from "./merchant-api.ts";

export type LiquidationAddress = LiquidationAddressResource;
export type Drain = LiquidationDrainResource;

const m = (merchantId: string, path: string) => `/merchants/${encodeURIComponent(merchantId)}${path}`;
const e = encodeURIComponent;

export const liquidationApi = {
  /** The merchant's liquidation addresses, newest first; the destination is masked. */
  list: (id: string, page: number) =>
    call<Page<LiquidationAddress>>("GET", m(id, `/liquidation-addresses?limit=50&page=${page}`)),
  get: (id: string, addressId: string) =>
    call<LiquidationAddress>("GET", m(id, `/liquidation-addresses/${e(addressId)}`)),
  /** One address's drains, newest first (the last 200). */
  drains: (id: string, addressId: string) =>
    call<Page<Drain>>("GET", m(id, `/liquidation-addresses/${e(addressId)}/drains?limit=200`)),
};
