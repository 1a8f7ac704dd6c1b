/** The operator's and finance's JSON routes (/dashboard/api/operator, /dashboard/api/finance). */

import type {
  ChainReconciliationAnswer,
  ChainAnswer as ChainRow,
  CreatedMerchantAnswer as CreatedMerchant,
  FailingDrainAnswer as FailingDrain,
  ImportedStatementAnswer as ImportedStatement,
  JobsAnswer,
  KycQueueItemAnswer as KycQueueItem,
  KycReviewAnswer as KycReview,
  KycSubmissionAnswer as KycSubmission,
  LedgerCheckAnswer as LedgerCheck,
  ManagedMerchantAnswer as ManagedMerchant,
  PendingSendAnswer as PendingSend,
  SanctionsAnswer,
  StatementImportAnswer as StatementImport,
  StatementLineAnswer as StatementLine,
  TransferBeneficiaryAnswer as TransferBeneficiary,
  TransfersReport,
  TreasuryBalanceAnswer as TreasuryBalance,
} from "./answers.ts";
import { call, download, type Environment } from "./api.ts";

/**
 * The back end's answers under the names the pages use (TransfersReport is `payments transfers report
 * --json`: transfers created in [from, to) by state, totals per currency).
 */
export type {
  ChainRow,
  CreatedMerchant,
  FailingDrain,
  ImportedStatement,
  KycQueueItem,
  KycReview,
  KycSubmission,
  LedgerCheck,
  ManagedMerchant,
  PendingSend,
  StatementImport,
  StatementLine,
  TransferBeneficiary,
  TransfersReport,
  TreasuryBalance,
};

export type ChainStateName = ChainRow["state"];
export type QueueRow = JobsAnswer["queues"][number];
export type FailedJob = JobsAnswer["failed"][number];
export type SanctionsMatchRow = SanctionsAnswer["matches"][number];
export type SanctionsHeldDeposit = SanctionsAnswer["held_deposits"][number];
export type ReviewStatus = KycReview["status"];
export type KycDecision = { decision: "approve" } | { decision: "reject" | "request_review"; reasons: string[] };
export type ReconcileLine = ChainReconciliationAnswer["lines"][number];

const id = encodeURIComponent;

export const operatorApi = {
  merchants: () => call<{ items: ManagedMerchant[] }>("GET", "/operator/merchants"),
  createMerchant: (name: string, environment: Environment, ownerEmail = "") =>
    call<CreatedMerchant>("POST", "/operator/merchants", {
      name,
      environment,
      ...(ownerEmail ? { owner_email: ownerEmail } : {}),
    }),
  setMerchantDisabled: (merchantId: string, disabled: boolean) =>
    call<Pick<ManagedMerchant, "id" | "disabled_at">>(
      "POST",
      `/operator/merchants/${id(merchantId)}/${disabled ? "disable" : "enable"}`,
    ),
  chains: () => call<{ lagging_blocks: number; items: ChainRow[] }>("GET", "/operator/chains"),
  jobs: () => call<JobsAnswer>("GET", "/operator/jobs"),
  sanctions: () => call<SanctionsAnswer>("GET", "/operator/sanctions"),
  failingDrains: () => call<{ items: FailingDrain[] }>("GET", "/operator/liquidation-drains/failing"),
  /** A transfer's travel rule data, decrypted for the admin (each reading audited). */
  transferBeneficiary: (transferId: string) =>
    call<TransferBeneficiary>("GET", `/operator/transfers/${id(transferId)}/beneficiary`),
  treasury: () => call<{ balances: TreasuryBalance[]; pending_sends: PendingSend[] }>("GET", "/operator/treasury"),
  kycReviews: (status: ReviewStatus | "ALL") =>
    call<{ items: KycQueueItem[] }>("GET", `/operator/kyc-reviews?status=${id(status)}`),
  /** The submitted data, decrypted for this reviewer (the view is audited). */
  kycSubmission: (submissionId: string) =>
    call<KycSubmission>("GET", `/operator/kyc-reviews/${id(submissionId)}/submission`),
  decideKyc: (submissionId: string, decision: KycDecision) =>
    call<KycReview>("POST", `/operator/kyc-reviews/${id(submissionId)}/decision`, decision),
  ledgerCheck: () => call<LedgerCheck>("GET", "/finance/ledger-check"),
  reconcileChains: () => call<ChainReconciliationAnswer>("GET", "/finance/reconcile/chains"),
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

/** The journal CSV of [from, to): the platform's (admin) or one merchant's, into the browser's downloads. */
export function downloadJournal(range: { from: string; to: string }, merchantId: string | undefined): Promise<void> {
  const path = merchantId ? `/merchants/${id(merchantId)}/finance/journal.csv` : "/finance/journal.csv";
  const name = `journal-${merchantId ? `${merchantId}-` : ""}${range.from}-${range.to}.csv`;
  return download(`${path}?${new URLSearchParams(range)}`, name);
}

/** Roles that see a merchant's finance page (the server enforces it; this only hides the link). */
export function canReadFinance(role: string): boolean {
  return role === "admin" || role === "owner" || role === "finance";
}
