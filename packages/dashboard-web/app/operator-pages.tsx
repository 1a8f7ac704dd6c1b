import type { ComponentChildren } from "preact";
import type { User } from "./api.ts";
import { lazyPage } from "./components/lazyPage.tsx";

// Each page is its own chunk, fetched when it first opens (components/lazyPage.tsx).
const AuditLog = lazyPage(() => import("./pages/operator/AuditLog.tsx").then((m) => m.AuditLog));
const BankStatements = lazyPage(() => import("./pages/finance/BankStatements.tsx").then((m) => m.BankStatements));
const Ledger = lazyPage(() => import("./pages/finance/Ledger.tsx").then((m) => m.Ledger));
const MerchantFinance = lazyPage(() => import("./pages/finance/MerchantFinance.tsx").then((m) => m.MerchantFinance));
const Reconciliation = lazyPage(() => import("./pages/finance/Reconciliation.tsx").then((m) => m.Reconciliation));
const Chains = lazyPage(() => import("./pages/operator/Chains.tsx").then((m) => m.Chains));
const FailingDrains = lazyPage(() => import("./pages/operator/FailingDrains.tsx").then((m) => m.FailingDrains));
const JobQueues = lazyPage(() => import("./pages/operator/JobQueues.tsx").then((m) => m.JobQueues));
const KycReviews = lazyPage(() => import("./pages/operator/KycReviews.tsx").then((m) => m.KycReviews));
const Sanctions = lazyPage(() => import("./pages/operator/Sanctions.tsx").then((m) => m.Sanctions));
const Treasury = lazyPage(() => import("./pages/operator/Treasury.tsx").then((m) => m.Treasury));

/** The operator nav's groups, in order (components/OperatorNav.tsx). */
export const OPERATOR_GROUPS = ["Platform", "Compliance", "Finance"] as const;

/** The operator's (admin) and finance pages: path, nav group, title, page. */
export const OPERATOR_PAGES: Array<{
  path: string;
  group: (typeof OPERATOR_GROUPS)[number];
  title: string;
  page: () => ComponentChildren;
}> = [
  { path: "/operator/chains", group: "Platform", title: "Chains", page: () => <Chains /> },
  { path: "/operator/jobs", group: "Platform", title: "Job queues", page: () => <JobQueues /> },
  { path: "/operator/treasury", group: "Platform", title: "Treasury", page: () => <Treasury /> },
  { path: "/operator/failing-drains", group: "Platform", title: "Failing drains", page: () => <FailingDrains /> },
  { path: "/operator/kyc", group: "Compliance", title: "KYC reviews", page: () => <KycReviews /> },
  { path: "/operator/sanctions", group: "Compliance", title: "Sanctions", page: () => <Sanctions /> },
  { path: "/operator/audit-log", group: "Compliance", title: "Audit log", page: () => <AuditLog /> },
  { path: "/finance/ledger", group: "Finance", title: "Ledger", page: () => <Ledger /> },
  { path: "/finance/reconciliation", group: "Finance", title: "Reconciliation", page: () => <Reconciliation /> },
  { path: "/finance/bank-statements", group: "Finance", title: "Bank statements", page: () => <BankStatements /> },
];

const MERCHANT_FINANCE = /^\/merchants\/([^/]+)\/finance$/;

/** Titles for the document, as App's TITLES. */
export const OPERATOR_TITLES: Array<[RegExp, string]> = [
  ...OPERATOR_PAGES.map(({ path, title }): [RegExp, string] => [new RegExp(`^${path}$`), title]),
  [MERCHANT_FINANCE, "Finance"],
];

/**
 * The operator or finance page at `path`, if it is one (the server refuses the data to other roles
 * anyway; a merchant user here only gets "page not found"), with the merchant it belongs to.
 */
export function operatorFinancePage(
  path: string,
  user: User,
): { page: ComponentChildren; merchantId?: string } | undefined {
  const merchantFinance = MERCHANT_FINANCE.exec(path);
  if (merchantFinance?.[1]) {
    return { page: <MerchantFinance merchantId={merchantFinance[1]} />, merchantId: merchantFinance[1] };
  }
  if (user.role !== "admin") return undefined;
  const found = OPERATOR_PAGES.find((p) => p.path === path);
  return found ? { page: found.page() } : undefined;
}
