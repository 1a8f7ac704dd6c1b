/** The merchant pages' JSON routes: the /v1 resources of one merchant, as the session may see them. */

import type {
  BankDepositResource,
  ChainNetworksAnswer,
  CreatedWebhookEndpointAnswer,
  CustomerResource,
  DeliveryAttemptResource,
  DepositPageAnswer,
  DepositQuery,
  EventResource,
  InviteAnswer,
  Money as MoneyAnswer,
  Page as PageAnswer,
  RedeliveryAnswer,
  SandboxAnswer,
  SandboxDepositResource,
  TeamMemberAnswer,
  TransferFundingResource,
  TransferQuery,
  TransferResource,
  TransferSpreadAnswer,
  VerificationSubmissionResource,
  VolumeAnswer,
  WalletResource,
  WebhookEndpointResource,
} from "./answers.ts";
import { call, type Deposit, type Role } from "./api.ts";

export type Page<T> = PageAnswer<T>;
export type Customer = CustomerResource;
export type Submission = VerificationSubmissionResource;
export type ResourceEvent = EventResource;
export type Wallet = WalletResource;
export type DepositPage = DepositPageAnswer;
export type Money = MoneyAnswer;
export type Transfer = TransferResource;
export type TransferFunding = TransferFundingResource;
export type WebhookEndpoint = WebhookEndpointResource;
export type DeliveryAttempt = DeliveryAttemptResource;
export type SandboxInfo = SandboxAnswer;
export type TeamMember = TeamMemberAnswer;
export type TransferSpread = TransferSpreadAnswer;
export type ChainNetwork = ChainNetworksAnswer["items"][number];
export type { DepositQuery, TransferQuery };

/** `query` as URL parameters, its empty values left out. */
export function paramsOf(query: object): URLSearchParams {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query))
    if (value !== undefined && value !== "") params.set(key, String(value));
  return params;
}

const m = (merchantId: string, path: string) => `/merchants/${encodeURIComponent(merchantId)}${path}`;
const e = encodeURIComponent;

export const merchantApi = {
  volume: (id: string) => call<VolumeAnswer>("GET", m(id, "/deposit-volume")),
  customers: (id: string, page: number) => call<Page<Customer>>("GET", m(id, `/customers?limit=50&page=${page}`)),
  customer: (id: string, customerId: string) => call<Customer>("GET", m(id, `/customers/${e(customerId)}`)),
  submissions: (id: string, customerId: string) =>
    call<Page<Submission>>("GET", m(id, `/customers/${e(customerId)}/verification-submissions?limit=200`)),
  eventsOf: (id: string, objectId: string) =>
    call<Page<ResourceEvent>>("GET", m(id, `/events?object_id=${e(objectId)}&limit=200`)),
  wallets: (id: string, page: number) => call<Page<Wallet>>("GET", m(id, `/wallets?limit=50&page=${page}`)),
  customerWallets: (id: string, customerId: string) =>
    call<Page<Wallet>>("GET", m(id, `/wallets?limit=200&customer_id=${e(customerId)}`)),
  wallet: (id: string, walletId: string) => call<Wallet>("GET", m(id, `/wallets/${e(walletId)}`)),
  deposits: (id: string, query: DepositQuery) =>
    call<DepositPage>("GET", m(id, `/deposits?${paramsOf({ limit: 25, ...query })}`)),
  deposit: (id: string, depositId: string) => call<Deposit>("GET", m(id, `/deposits/${e(depositId)}`)),
  chains: (id: string) => call<ChainNetworksAnswer>("GET", m(id, "/chains")),
  transfers: (id: string, page: number, query: TransferQuery = {}) =>
    call<Page<Transfer>>("GET", m(id, `/transfers?${paramsOf({ limit: 50, page, ...query })}`)),
  transfer: (id: string, transferId: string) => call<Transfer>("GET", m(id, `/transfers/${e(transferId)}`)),
  spreads: (id: string, transferIds: string[]) =>
    call<{ items: TransferSpread[] }>("GET", m(id, `/transfer-spreads?ids=${transferIds.map(e).join(",")}`)),
  funding: (id: string, transferId: string) =>
    call<TransferFunding>("GET", m(id, `/transfers/${e(transferId)}/funding`)),
  endpoints: (id: string) => call<Page<WebhookEndpoint>>("GET", m(id, "/webhook-endpoints?limit=200")),
  createEndpoint: (id: string, body: { url: string; enabled_events: string[]; description?: string }) =>
    call<CreatedWebhookEndpointAnswer>("POST", m(id, "/webhook-endpoints"), body),
  updateEndpoint: (id: string, endpointId: string, body: { status: "enabled" | "disabled" }) =>
    call<WebhookEndpoint>("PATCH", m(id, `/webhook-endpoints/${e(endpointId)}`), body),
  testEndpoint: (id: string, endpointId: string) =>
    call<unknown>("POST", m(id, `/webhook-endpoints/${e(endpointId)}/test`)),
  deliveries: (id: string, endpointId: string) =>
    call<Page<DeliveryAttempt>>("GET", m(id, `/webhook-endpoints/${e(endpointId)}/deliveries?limit=50`)),
  redeliver: (id: string, eventId: string, endpointId: string) =>
    call<RedeliveryAnswer>("POST", m(id, `/events/${e(eventId)}/redeliver`), { endpoint_id: endpointId }),
  sandbox: (id: string) => call<SandboxInfo>("GET", m(id, "/sandbox")),
  sandboxDeposit: (id: string, body: { address: string; asset: string; amount: string; chain: string }) =>
    call<SandboxDepositResource>("POST", m(id, "/sandbox/deposits"), body),
  sandboxBankCredit: (id: string, body: { virtual_account_id: string; amount: string; reference?: string }) =>
    call<BankDepositResource>("POST", m(id, "/sandbox/bank-deposits"), body),
  team: (id: string) => call<{ items: TeamMember[] }>("GET", m(id, "/users")),
  invite: (id: string, body: { email: string; role: Role }) => call<InviteAnswer>("POST", m(id, "/invites"), body),
};

/** What each role may do on these pages (the server refuses anyway: this only hides buttons). */
export const canWriteWebhooks = (role: Role) => role === "admin" || role === "owner" || role === "developer";
export const canUseSandbox = canWriteWebhooks;
export const canInvite = (role: Role) => role === "admin" || role === "owner";
