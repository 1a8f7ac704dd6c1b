/** The merchant pages' JSON routes: the /v1 resources of one merchant, as the session may see them. */
import { call, type Deposit, type Role } from "./api.ts";

export interface Page<T> {
  items: T[];
  total: number;
  page: number;
  limit: number;
  total_pages: number;
}

export interface Customer {
  id: string;
  type: "INDIVIDUAL" | "BUSINESS";
  first_name: string | null;
  last_name: string | null;
  business_name: string | null;
  email: string | null;
  external_reference: string | null;
  status: string;
  tier_1_complete: boolean;
  tier_2_complete: boolean;
  rejection_reasons: string[] | null;
  created_at: string;
}

export interface Submission {
  id: string;
  tier: string;
  status: string;
  rejection_reasons: string[] | null;
  submitted_at: string | null;
  completed_at: string | null;
  created_at: string;
}

export interface ResourceEvent {
  id: string;
  type: string;
  object_id: string;
  created_at: string;
  data: { status?: string } & Record<string, unknown>;
}

export interface Destination {
  id: string;
  chain: string;
  address: string;
  status: string;
}

export interface Wallet {
  id: string;
  customer_id: string;
  label: string;
  status: string;
  destinations: Destination[];
  created_at: string;
}

export interface LiveDeposit extends Deposit {
  tx_hash: string;
  wallet_id: string;
  customer_id: string;
}

export interface DepositPage {
  items: LiveDeposit[];
  next: string | null;
}

export interface Money {
  asset: string;
  currency: string;
  network: string;
  value: string;
}

export interface Transfer {
  id: string;
  status: string;
  customer_id: string;
  funding_mode: string;
  source: { method: string; asset: string; network: string };
  source_amount: Money;
  destination_amount: Money;
  fee: Money;
  created_at: string;
  expires_at: string;
}

export interface TransferFunding {
  transfer_id: string;
  transfer_status: string;
  funding: { mode: string; method: string; expires_at: string; required_amount: Money; fee: Money };
  intent: {
    id: string;
    status: string;
    required_amount: Money;
    bank_transfer: Record<string, string> | null;
    crypto_deposit: Record<string, string> | null;
    flag: { code: string; message: string } | null;
  };
}

export interface WebhookEndpoint {
  id: string;
  url: string;
  description: string | null;
  enabled_events: string[];
  status: "enabled" | "disabled";
  disabled_reason: string | null;
  created_at: string;
}

export interface DeliveryAttempt {
  id: string;
  event_id: string | null;
  event_type: string;
  attempt: number;
  attempted_at: string;
  status_code: number | null;
  latency_ms: number;
  error: string | null;
  succeeded: boolean;
}

export interface SandboxInfo {
  enabled: boolean;
  chains: Array<{ chain: string; assets: string[] }>;
}

export interface TeamMember {
  id: string;
  email: string;
  role: Role;
  has_password: boolean;
  created_at: string;
}

const m = (merchantId: string, path: string) => `/merchants/${encodeURIComponent(merchantId)}${path}`;
const e = encodeURIComponent;

export const merchantApi = {
  volume: (id: string) =>
    call<{ days: number; items: Array<{ day: string; amount_usd: string; count: number }> }>(
      "GET",
      m(id, "/deposit-volume"),
    ),
  customers: (id: string, page: number) => call<Page<Customer>>("GET", m(id, `/customers?limit=50&page=${page}`)),
  customer: (id: string, customerId: string) => call<Customer>("GET", m(id, `/customers/${e(customerId)}`)),
  submissions: (id: string, customerId: string) =>
    call<Page<Submission>>("GET", m(id, `/customers/${e(customerId)}/verification-submissions?limit=200`)),
  eventsOf: (id: string, objectId: string) =>
    call<Page<ResourceEvent>>("GET", m(id, `/events?object_id=${e(objectId)}&limit=200`)),
  wallets: (id: string, page: number) => call<Page<Wallet>>("GET", m(id, `/wallets?limit=50&page=${page}`)),
  wallet: (id: string, walletId: string) => call<Wallet>("GET", m(id, `/wallets/${e(walletId)}`)),
  deposits: (id: string, query: { status?: string; chain?: string; after?: string }) => {
    const params = new URLSearchParams({ limit: "25" });
    for (const [key, value] of Object.entries(query)) if (value) params.set(key, value);
    return call<DepositPage>("GET", m(id, `/deposits?${params}`));
  },
  transfers: (id: string, page: number) => call<Page<Transfer>>("GET", m(id, `/transfers?limit=50&page=${page}`)),
  funding: (id: string, transferId: string) =>
    call<TransferFunding>("GET", m(id, `/transfers/${e(transferId)}/funding`)),
  endpoints: (id: string) => call<Page<WebhookEndpoint>>("GET", m(id, "/webhook-endpoints?limit=200")),
  createEndpoint: (id: string, body: { url: string; enabled_events: string[]; description?: string }) =>
    call<WebhookEndpoint & { secret: string }>("POST", m(id, "/webhook-endpoints"), body),
  updateEndpoint: (id: string, endpointId: string, body: { status: "enabled" | "disabled" }) =>
    call<WebhookEndpoint>("PATCH", m(id, `/webhook-endpoints/${e(endpointId)}`), body),
  testEndpoint: (id: string, endpointId: string) =>
    call<unknown>("POST", m(id, `/webhook-endpoints/${e(endpointId)}/test`)),
  deliveries: (id: string, endpointId: string) =>
    call<Page<DeliveryAttempt>>("GET", m(id, `/webhook-endpoints/${e(endpointId)}/deliveries?limit=50`)),
  redeliver: (id: string, eventId: string, endpointId: string) =>
    call<{ deliveries: unknown[] }>("POST", m(id, `/events/${e(eventId)}/redeliver`), { endpoint_id: endpointId }),
  sandbox: (id: string) => call<SandboxInfo>("GET", m(id, "/sandbox")),
  sandboxDeposit: (id: string, body: { address: string; asset: string; amount: string; chain: string }) =>
    call<{ id: string; status: string }>("POST", m(id, "/sandbox/deposits"), body),
  sandboxBankCredit: (id: string, body: { virtual_account_id: string; amount: string; reference?: string }) =>
    call<{ id: string }>("POST", m(id, "/sandbox/bank-deposits"), body),
  team: (id: string) => call<{ items: TeamMember[] }>("GET", m(id, "/users")),
  invite: (id: string, body: { email: string; role: Role }) =>
    call<{ user: { id: string; email: string; role: Role }; password_link: string }>("POST", m(id, "/invites"), body),
};

/** What each role may do on these pages (the server refuses anyway: this only hides buttons). */
export const canWriteWebhooks = (role: Role) => role === "admin" || role === "owner" || role === "developer";
export const canUseSandbox = canWriteWebhooks;
export const canInvite = (role: Role) => role === "admin" || role === "owner";
