/** The virtual accounts pages' JSON routes: a merchant's USD accounts and their bank deposits. */

import type { BankDepositResource, VirtualAccountResource } from "./answers.ts";
import { call } from "./api.ts";
import type { Page } from "./merchant-api.ts";

export type VirtualAccount = VirtualAccountResource;
export type BankDeposit = BankDepositResource;

const m = (merchantId: string, path: string) => `/merchants/${encodeURIComponent(merchantId)}${path}`;
const e = encodeURIComponent;

export const virtualAccountApi = {
  /** The merchant's accounts, newest first (one customer's with `customerId`), masked. */
  list: (id: string, page: number, customerId?: string) =>
    call<Page<VirtualAccount>>(
      "GET",
      m(id, `/virtual-accounts?limit=50&page=${page}${customerId ? `&customer_id=${e(customerId)}` : ""}`),
    ),
  /** One account: full instructions while ACTIVE. */
  get: (id: string, accountId: string) => call<VirtualAccount>("GET", m(id, `/virtual-accounts/${e(accountId)}`)),
  deposits: (id: string, accountId: string) =>
    call<Page<BankDeposit>>("GET", m(id, `/virtual-accounts/${e(accountId)}/deposits?limit=200`)),
};
