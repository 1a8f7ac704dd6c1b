/**
 * The answers of /dashboard/api as the front end receives them, each named from the function or
 * schema that builds it on this side (a view function of the routes here, a /v1 resource's zod
 * schema in @mp/api, a store's or a CLI command's own JSON): @mp/dashboard-web imports these types
 * (type-only, so nothing of the back end enters its bundle) instead of re-typing the JSON by hand,
 * and a field renamed here fails the front end's typecheck. Likewise the filters the pages send,
 * named from the routes' query schemas.
 */
import type {
  CreatedWebhookEndpointResource,
  depositVolumeByDay,
  ListEventsQuery,
  ListTransfersQuery,
  listDepositsAfter,
  listUnmatchedStatementLines,
  RedeliveryResource,
  RotatedSecretResource,
  statementImportJson,
} from "@mp/api";
import type { FailingDrain } from "@mp/liquidation";
import type { manualReviewJson } from "@mp/providers";
import type { transferBeneficiaryJson } from "@mp/transfers";
import type { treasuryBalanceJson, treasurySendJson } from "@mp/treasury";
import type { z } from "zod";
import type { createdKeyView, keyView } from "./api-key-routes.ts";
import type { chainReconciliationView, importView, ledgerCheckView } from "./finance-routes.ts";
import type { depositsQuery, inviteView, sandboxView } from "./merchant-page-routes.ts";
import type { merchantView } from "./merchant-routes.ts";
import type { auditLogQuery, readAuditLog } from "./operator-audit-routes.ts";
import type { chainView } from "./operator-chain-routes.ts";
import type { jobsView } from "./operator-job-routes.ts";
import type { kycReviewView, submissionView } from "./operator-kyc-routes.ts";
import type { createdMerchantView, managedMerchantView } from "./operator-merchant-routes.ts";
import type { sanctionsView } from "./operator-sanctions-routes.ts";
import type { overviewView } from "./overview-routes.ts";
import type { quotePageItem } from "./quote-list.ts";
import type { Role } from "./roles.ts";
import type { sessionView } from "./session-routes.ts";
import type { chainNetworksView, transferSpreads } from "./transfer-spreads.ts";
import type { listMerchantUsers } from "./user-store.ts";
import type { endpointHealth } from "./webhook-page-routes.ts";

/** `T` after JSON.stringify and JSON.parse: a Date arrives as its ISO string. */
export type Json<T> = T extends Date
  ? string
  : T extends ReadonlyArray<infer U>
    ? Json<U>[]
    : T extends object
      ? { [K in keyof T]: Json<T[K]> }
      : T;

type Answer<F extends (...args: never[]) => unknown> = Json<Awaited<ReturnType<F>>>;

// The /v1 resources the pages read, as @mp/api infers them from their schemas.
export type {
  BankDepositResource,
  CustomerResource,
  DeletedWebhookEndpointResource,
  DeliveryAttemptResource,
  DepositResource,
  EventResource,
  LiquidationAddressResource,
  LiquidationDrainResource,
  MerchantBalance,
  Money,
  Page,
  PaymentRequestResource,
  SandboxDepositResource,
  TransferFundingResource,
  TransferResource,
  TransfersReport,
  VerificationSubmissionResource,
  VirtualAccountResource,
  WalletResource,
  WebhookEndpointResource,
} from "@mp/api";
export type { Role };

// Session, merchants, keys, overview.
export type SessionAnswer = Answer<typeof sessionView>;
export type UserAnswer = SessionAnswer["user"];
export type MerchantAnswer = Answer<typeof merchantView>;
export type ApiKeyAnswer = Answer<typeof keyView>;
export type CreatedKeyAnswer = Answer<typeof createdKeyView>;
export type OverviewAnswer = Answer<typeof overviewView>;

// The merchant pages (the /v1 routes' own answers, and the dashboard's few of its own).
export type DepositPageAnswer = Answer<typeof listDepositsAfter>;
export type VolumeAnswer = { days: number; items: Answer<typeof depositVolumeByDay> };
export type SandboxAnswer = Answer<typeof sandboxView>;
export type TeamMemberAnswer = Answer<typeof listMerchantUsers>[number];
export type InviteAnswer = Answer<typeof inviteView>;
export type ChainNetworksAnswer = Answer<typeof chainNetworksView>;
export type TransferSpreadAnswer = Answer<typeof transferSpreads>[number];
export type QuotePageAnswer = Answer<typeof quotePageItem>;
export type CreatedWebhookEndpointAnswer = CreatedWebhookEndpointResource;
export type RedeliveryAnswer = RedeliveryResource;
export type RotatedSecretAnswer = RotatedSecretResource;
export type EndpointHealthAnswer = Answer<typeof endpointHealth>[number];

// The operator's and finance's pages.
export type ManagedMerchantAnswer = Answer<typeof managedMerchantView>;
export type CreatedMerchantAnswer = Answer<typeof createdMerchantView>;
export type ChainAnswer = Answer<typeof chainView>;
export type JobsAnswer = Answer<typeof jobsView>;
export type SanctionsAnswer = Answer<typeof sanctionsView>;
export type AuditLogAnswer = Answer<typeof readAuditLog>;
export type TransferBeneficiaryAnswer = Answer<typeof transferBeneficiaryJson>;
export type TreasuryBalanceAnswer = Answer<typeof treasuryBalanceJson>;
export type PendingSendAnswer = Answer<typeof treasurySendJson>;
export type FailingDrainAnswer = Json<FailingDrain>;
export type KycReviewAnswer = Answer<typeof manualReviewJson>;
export type KycQueueItemAnswer = Answer<typeof kycReviewView>;
export type KycSubmissionAnswer = Answer<typeof submissionView>;
export type LedgerCheckAnswer = Answer<typeof ledgerCheckView>;
export type ChainReconciliationAnswer = Answer<typeof chainReconciliationView>;
export type StatementImportAnswer = Answer<typeof importView>;
export type StatementLineAnswer = Answer<typeof listUnmatchedStatementLines>[number];
export type ImportedStatementAnswer = Answer<typeof statementImportJson> & { unmatched_lines: StatementLineAnswer[] };

/**
 * A route's filters as a page sends them: the parameters its query schema takes, each the text of
 * a field or a cursor ("" and absent ones are left out of the URL). The route parses the values
 * (a wrong one is its 400, shown by the page); a parameter renamed or dropped there fails here.
 */
export type Filters<Query> = { [K in keyof Query]?: string };
export type DepositQuery = Filters<z.input<typeof depositsQuery>>;
export type TransferQuery = Filters<ListTransfersQuery>;
export type EventQuery = Filters<ListEventsQuery>;
export type AuditQuery = Filters<z.input<typeof auditLogQuery>>;
