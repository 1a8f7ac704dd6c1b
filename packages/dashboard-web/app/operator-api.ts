/** The operator's and finance's JSON routes (/dashboard/api/operator, /dashboard/api/finance). */
import { call, type Environment } from "./api.ts";

export interface ManagedMerchant {
  id: string;
  name: string;
  environment: Environment;
  created_at: string;
  disabled_at: string | null;
}

export interface CreatedMerchant {
  id: string;
  name: string;
  environment: Environment;
  api_key: string;
}

export type ChainStateName = "stopped" | "no_indexer" | "waiting" | "lagging" | "indexing";

export interface ChainRow {
  chain: string;
  state: ChainStateName;
  head_height: number | null;
  indexed_height: number | null;
  lag: number | null;
  updated_at: string | null;
  stopped_error: string | null;
  leader: { host: string; pid: number; since: string } | null;
  /** null: this process does not index, so it has no count. */
  rpc_errors: number | null;
  lag_history: Array<{ at: string; lag: number | null }>;
}

export interface QueueRow {
  queue: string;
  counts: Record<string, number>;
  oldest_waiting_seconds: number | null;
}

export interface FailedJob {
  id: string;
  queue: string;
  retry_count: number;
  created_at: string;
  failed_at: string | null;
  error: string | null;
}

export interface TreasuryBalance {
  chain: string;
  asset: string;
  amount: string;
  amount_raw: string;
  observed_at: string;
}

export interface PendingSend {
  id: string;
  chain: string;
  asset: string;
  to: string;
  amount: string | null;
  amount_raw: string;
  purpose: string;
  state: string;
  reason: string | null;
  created_at: string;
}

export type ReviewStatus = "PENDING" | "APPROVED" | "REJECTED" | "REQUIRES_REVIEW";

export interface KycReview {
  submission_id: string;
  review_id: string;
  customer_type: "INDIVIDUAL" | "BUSINESS";
  tier: string;
  status: ReviewStatus;
  reasons: string[];
  submitted_at: string;
  decided_by: string | null;
  decided_at: string | null;
}

export type KycDecision = { decision: "approve" } | { decision: "reject" | "request_review"; reasons: string[] };

export interface LedgerCheck {
  ok: boolean;
  entries: number;
  merchants: number;
  problems: string[];
}

export interface ReconcileLine {
  chain: string;
  asset: string;
  decimals: number;
  status: "agrees" | "unexplained" | "unreadable";
  chain_holdings: string | null;
  expected: string;
  difference: string | null;
  explanation: string;
}

export interface StatementLine {
  id: string;
  location: string;
  account: string;
  direction: "CREDIT" | "DEBIT";
  amount: string;
  currency: string;
  bookingDate: string;
  reference: string | null;
  counterparty: string | null;
  reason: string | null;
}

export interface StatementImport {
  id: string;
  file_name: string;
  format: "camt053" | "csv";
  lines: number;
  credited: number;
  unmatched: number;
  already_imported: number;
  imported_by: string;
  imported_at: string;
}

export interface ImportedStatement {
  import_id: string;
  format: "camt053" | "csv";
  lines: number;
  credited: number;
  unmatched: number;
  already_imported: number;
  unmatched_lines: StatementLine[];
}

/** `payments transfers report --json`: transfers created in [from, to) by state, totals per currency. */
export interface TransfersReport {
  from: string | null;
  to: string | null;
  merchant_id: string | null;
  count: number;
  states: Array<{
    status: string;
    count: number;
    totals: Array<{
      source_currency: string;
      destination_currency: string;
      count: number;
      /** Decimal strings in whole units: what payers paid (fee included), the fee, what payees get. */
      source_amount: string;
      fee_amount: string;
      destination_amount: string;
    }>;
  }>;
}

const id = encodeURIComponent;

export const operatorApi = {
  merchants: () => call<{ items: ManagedMerchant[] }>("GET", "/operator/merchants"),
  createMerchant: (name: string, environment: Environment) =>
    call<CreatedMerchant>("POST", "/operator/merchants", { name, environment }),
  setMerchantDisabled: (merchantId: string, disabled: boolean) =>
    call<{ id: string; disabled_at: string | null }>(
      "POST",
      `/operator/merchants/${id(merchantId)}/${disabled ? "disable" : "enable"}`,
    ),
  chains: () => call<{ lagging_blocks: number; items: ChainRow[] }>("GET", "/operator/chains"),
  jobs: () => call<{ queues: QueueRow[]; failed: FailedJob[] }>("GET", "/operator/jobs"),
  treasury: () => call<{ balances: TreasuryBalance[]; pending_sends: PendingSend[] }>("GET", "/operator/treasury"),
  kycReviews: (status: ReviewStatus | "ALL") =>
    call<{ items: KycReview[] }>("GET", `/operator/kyc-reviews?status=${id(status)}`),
  decideKyc: (submissionId: string, decision: KycDecision) =>
    call<KycReview>("POST", `/operator/kyc-reviews/${id(submissionId)}/decision`, decision),
  ledgerCheck: () => call<LedgerCheck>("GET", "/finance/ledger-check"),
  reconcileChains: () =>
    call<{ lines: ReconcileLine[]; unreadable: string[]; exit_code: 0 | 1 | 2 }>("GET", "/finance/reconcile/chains"),
  reconcileBank: () =>
    call<{ imports: StatementImport[]; unmatched: StatementLine[] }>("GET", "/finance/reconcile/bank"),
  /** The platform's report (admin), or one merchant's; from/to are ISO days, either may be left open. */
  transfersReport: (range: { from?: string; to?: string }, merchantId?: string) => {
    const query = new URLSearchParams(Object.entries(range).filter(([, day]) => day) as string[][]).toString();
    const path = merchantId ? `/merchants/${id(merchantId)}/finance/transfers-report` : "/finance/transfers-report";
    return call<TransfersReport>("GET", query ? `${path}?${query}` : path);
  },
  importStatement: (fileName: string, content: string) =>
    call<ImportedStatement>("POST", `/finance/bank-statements?file_name=${id(fileName)}`, content, "text/plain"),
};

/** Where the journal CSV downloads from: the platform's (admin) or one merchant's. */
export function journalCsvPath(merchantId: string | undefined): string {
  return merchantId
    ? `/dashboard/api/merchants/${id(merchantId)}/finance/journal.csv`
    : "/dashboard/api/finance/journal.csv";
}

/** Roles that see a merchant's finance page (the server enforces it; this only hides the link). */
export function canReadFinance(role: string): boolean {
  return role === "admin" || role === "owner" || role === "finance";
}
