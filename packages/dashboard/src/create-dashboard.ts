import { type AppDeps, errorHandler } from "@mp/api";
import { NotFoundError } from "@mp/core";
import type { ReconcileTarget } from "@mp/treasury";
import express, { type Express, Router } from "express";
import { apiKeyRoutes } from "./api-key-routes.ts";
// --- Operator and finance pages ---
import { financeRoutes } from "./finance-routes.ts";
// --- end operator and finance pages ---
import { merchantPageRoutes } from "./merchant-page-routes.ts";
import { merchantRoutes } from "./merchant-routes.ts";
import { operatorAuditRoutes } from "./operator-audit-routes.ts";
import { operatorBankLineRoutes } from "./operator-bank-line-routes.ts";
import { operatorChainRoutes } from "./operator-chain-routes.ts";
import { operatorJobRoutes } from "./operator-job-routes.ts";
import { operatorKycRoutes } from "./operator-kyc-routes.ts";
import { operatorLiquidationRoutes } from "./operator-liquidation-routes.ts";
import { operatorMerchantRoutes } from "./operator-merchant-routes.ts";
import { operatorSanctionsRoutes } from "./operator-sanctions-routes.ts";
import { operatorTransferRoutes } from "./operator-transfer-routes.ts";
import { operatorTreasuryRoutes } from "./operator-treasury-routes.ts";
import { overviewRoutes } from "./overview-routes.ts";
import { paymentRequestPageRoutes } from "./payment-request-page-routes.ts";
import { quotePageRoutes } from "./quote-page-routes.ts";
import { requireSession } from "./require-session.ts";
import { returnPolicyRoutes } from "./return-policy-routes.ts";
import { sessionRoutes } from "./session-routes.ts";
import { securityHeaders, staticPages } from "./static-pages.ts";
import { teamRoutes } from "./team-routes.ts";
import { virtualAccountPageRoutes } from "./virtual-account-page-routes.ts";
import { webhookPageRoutes } from "./webhook-page-routes.ts";

/** What the dashboard reads besides its own tables: the API's dependencies (AppDeps), a few of them. */
export interface DashboardOptions extends Pick<AppDeps, "db" | "logger" | "rates" | "indexerStates"> {
  /** Sign-in attempts per client address and minute (default 30). */
  signInsPerMinute?: number;
  /** The built front end (default: @mp/dashboard-web's dist). */
  distDir?: string;
  // --- Merchant pages ---
  /**
   * The API's full dependencies (the service passes its AppDeps): the merchant pages run the /v1
   * routes' own handlers with them. Without them those pages' routes are not mounted (404).
   */
  appDeps?: AppDeps;
  // --- end merchant pages ---
  // --- Operator and finance pages ---
  /** The KYC review queue's decisions enqueue the customer's status check (absent: 503 on a decision). */
  jobs?: AppDeps["jobs"];
  /**
   * Opens a KYC submission for its reviewer (absent: 503 on the review queue's "show submitted data");
   * seals the payer accounts of imported statement lines (absent: none kept, bank returns stay payable).
   */
  encryption?: AppDeps["encryption"];
  /** This process's registry: the chains page's RPC error counts (absent: not shown). */
  metrics?: AppDeps["metrics"];
  /** The configured chains and assets (`payments reconcile chains`'s targets); default none. */
  chainTargets?: () => ReconcileTarget[];
  // --- end operator and finance pages ---
}

/**
 * Everything under /dashboard: the JSON routes under /dashboard/api (session-authenticated, not in
 * the public OpenAPI; errors in the API's error form, by its one mapping) and the static pages.
 */
export function createDashboardRouter(options: DashboardOptions): Router {
  const { db, logger } = options;
  const json = express.json({ limit: "16kb" });
  const api = Router();
  api.use((_req, res, next) => {
    // Answers about a person's session are never cached.
    res.set("Cache-Control", "no-store");
    next();
  });
  api.use(sessionRoutes(db, json, options.signInsPerMinute ?? 30));
  // Every route below needs a session, and a write its CSRF token.
  api.use(requireSession(db), json);
  api.use(merchantRoutes(db));
  api.use(apiKeyRoutes(db));
  api.use(returnPolicyRoutes(db));
  api.use(overviewRoutes(options));
  // --- Merchant pages (customers, wallets, deposits, transfers, webhooks, sandbox, team) ---
  if (options.appDeps) {
    api.use(
      merchantPageRoutes(options.appDeps),
      paymentRequestPageRoutes(options.appDeps),
      quotePageRoutes(options.appDeps),
      virtualAccountPageRoutes(options.appDeps),
      webhookPageRoutes(options.appDeps),
      teamRoutes(options.appDeps),
    );
  }
  // --- end merchant pages ---
  // --- Operator and finance pages (admin: operator; finance: a merchant's own export) ---
  const chainTargets = options.chainTargets ?? (() => []);
  api.use(operatorMerchantRoutes(db));
  api.use(operatorChainRoutes(options));
  api.use(operatorJobRoutes(db));
  api.use(operatorTreasuryRoutes(db, chainTargets));
  api.use(operatorKycRoutes(options));
  api.use(operatorSanctionsRoutes(db));
  api.use(operatorAuditRoutes(db));
  api.use(operatorBankLineRoutes(db));
  api.use(operatorLiquidationRoutes(db));
  if (options.appDeps) api.use(operatorTransferRoutes(options.appDeps));
  api.use(financeRoutes(db, chainTargets, options.encryption));
  // --- end operator and finance pages ---
  api.use(() => {
    throw new NotFoundError("Route");
  });
  api.use(errorHandler);

  const router = Router();
  router.use(securityHeaders);
  router.use("/api", api);
  router.use(staticPages(logger, options.distDir));
  return router;
}

/**
 * The service's HTTP app: the dashboard at /dashboard in front of the API app (`createApp`), which
 * keeps every other path, its 404 included.
 */
export function withDashboard(apiApp: Express, options: DashboardOptions): Express {
  const app = express();
  app.disable("x-powered-by");
  app.set("etag", false);
  app.use("/dashboard", createDashboardRouter(options));
  app.use(apiApp);
  return app;
}
