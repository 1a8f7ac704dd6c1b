import { once } from "node:events";
import {
  type AppDeps,
  importBankStatement,
  listStatementImports,
  listUnmatchedStatementLines,
  parseOrThrow,
  type StatementImport,
  statementImportJson,
} from "@mp/api";
import { formatUsd, ServiceUnavailableError } from "@mp/core";
import type { Database } from "@mp/db";
import { recordAudit } from "@mp/db";
import { checkLedger, exportJournalCsv, type LedgerCheckResult } from "@mp/ledger";
import { transfersReport } from "@mp/transfers";
import { type ReconcileReport, type ReconcileTarget, reconcileChains, recordReconcileReport } from "@mp/treasury";
import express, { type Response, Router } from "express";
import { z } from "zod";
import { dashboardActor } from "./audit-log.ts";
import { userWith } from "./require-session.ts";
import type { DashboardUser } from "./roles.ts";
import { merchantOfPath } from "./v1-route.ts";

/** `YYYY-MM-DD` or a full ISO timestamp, as `payments ledger export --from/--to` take them. */
const isoDate = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}(T[\d:.]+(Z|[+-]\d{2}:\d{2}))?$/, "an ISO date, e.g. 2026-11-01")
  .transform((value) => new Date(value))
  .refine((date) => !Number.isNaN(date.getTime()), "not a date");
const RangeQuery = z.object({ from: isoDate, to: isoDate });
/** `payments transfers report`'s range: either end may be left open. */
const OpenRangeQuery = z.object({ from: isoDate.optional(), to: isoDate.optional() });
const ImportQuery = z.object({
  file_name: z.string().trim().min(1).max(200),
  format: z.enum(["camt053", "csv"]).optional(),
});

/** Largest statement file accepted (a month of a busy account's camt.053 is well below it). */
const STATEMENT_LIMIT = "10mb";

export function importView(i: StatementImport) {
  return {
    id: i.id,
    file_name: i.fileName,
    format: i.format,
    lines: i.lines,
    credited: i.credited,
    unmatched: i.unmatched,
    already_imported: i.alreadyImported,
    imported_by: i.importedBy,
    imported_at: i.importedAt,
  };
}

/** `payments ledger check`'s result as the ledger page shows it. */
export function ledgerCheckView(result: LedgerCheckResult) {
  const { suspense } = result;
  return {
    ok: result.ok,
    entries: result.entries,
    merchants: result.merchants,
    problems: result.problems,
    // Unmatched bank statement credits waiting in bank_suspense, and since when.
    suspense: {
      lines: suspense.lines,
      amount_usd: formatUsd(suspense.amountUsdMicros),
      oldest_since: suspense.oldestSince?.toISOString() ?? null,
    },
  };
}

/** `payments reconcile chains`'s report: each chain and asset's line (smallest units), the chains not read. */
export function chainReconciliationView(report: ReconcileReport) {
  return { lines: report.lines, unreadable: report.unreadable, exit_code: report.exitCode };
}

/**
 * Streams the journal CSV exactly as `payments ledger export [--merchant]` writes it (the same
 * function, one page of lines at a time, waiting for the socket when it is full).
 */
async function streamJournal(
  db: Database,
  res: Response,
  user: DashboardUser,
  range: { from: Date; to: Date; merchantId?: string },
): Promise<void> {
  await recordAudit(db, {
    actor: dashboardActor(user.email),
    action: "ledger.exported",
    objectType: range.merchantId ? "merchant" : "ledger",
    objectId: range.merchantId ?? "journal",
    details: { from: range.from.toISOString(), to: range.to.toISOString() },
  });
  const day = (d: Date) => d.toISOString().slice(0, 10);
  const name = `journal-${range.merchantId ? `${range.merchantId}-` : ""}${day(range.from)}-${day(range.to)}.csv`;
  res.status(200).type("text/csv; charset=utf-8").set("Content-Disposition", `attachment; filename="${name}"`);
  await exportJournalCsv(db, range, async (line) => {
    if (!res.write(`${line}\n`)) await once(res, "drain");
  });
  res.end();
}

/**
 * Finance: the ledger check, the journal export, the chain and bank reconciliations and the bank
 * statement import and the transfers report, each the code behind its CLI command. Platform-wide ones are the admin's
 * (`operator`); a merchant's own journal export and transfers report are open to its owner and finance people.
 */
export function financeRoutes(
  db: Database,
  chainTargets: () => ReconcileTarget[],
  keyring?: AppDeps["encryption"] | undefined,
): Router {
  const router = Router();

  router.get("/finance/ledger-check", async (_req, res) => {
    const user = userWith(res, "operator");
    const result = await checkLedger(db);
    await recordAudit(db, {
      actor: dashboardActor(user.email),
      action: "ledger.checked",
      objectType: "ledger",
      objectId: "journal",
      details: { ok: result.ok, problems: result.problems.length },
    });
    res.json(ledgerCheckView(result));
  });

  router.get("/finance/journal.csv", async (req, res) => {
    const user = userWith(res, "operator");
    const range = parseOrThrow(RangeQuery, req.query, "query");
    await streamJournal(db, res, user, range);
  });

  router.get("/merchants/:merchantId/finance/journal.csv", async (req, res) => {
    const { user, merchantId } = merchantOfPath(req, res, "finance:read");
    const range = parseOrThrow(RangeQuery, req.query, "query");
    await streamJournal(db, res, user, { ...range, merchantId });
  });

  // The report object is the CLI's `--json` answer as it is (no view to keep in step with it).
  router.get("/finance/transfers-report", async (req, res) => {
    userWith(res, "operator");
    res.json(await transfersReport(db, parseOrThrow(OpenRangeQuery, req.query, "query")));
  });

  router.get("/merchants/:merchantId/finance/transfers-report", async (req, res) => {
    const { merchantId } = merchantOfPath(req, res, "finance:read");
    const range = parseOrThrow(OpenRangeQuery, req.query, "query");
    res.json(await transfersReport(db, { ...range, merchantId }));
  });

  router.get("/finance/reconcile/chains", async (_req, res) => {
    userWith(res, "operator");
    const targets = chainTargets();
    if (targets.length === 0) throw new ServiceUnavailableError("No chains are configured: nothing to reconcile");
    const report = await reconcileChains(db, targets);
    await recordReconcileReport(db, report);
    res.json(chainReconciliationView(report));
  });

  router.get("/finance/reconcile/bank", async (_req, res) => {
    userWith(res, "operator");
    const [imports, unmatched] = [await listStatementImports(db), await listUnmatchedStatementLines(db)];
    res.json({ imports: imports.map(importView), unmatched });
  });

  router.post(
    "/finance/bank-statements",
    express.text({ type: () => true, limit: STATEMENT_LIMIT }),
    async (req, res) => {
      const user = userWith(res, "operator");
      const query = parseOrThrow(ImportQuery, req.query, "query");
      const content = typeof req.body === "string" ? req.body : "";
      const result = await importBankStatement(db, {
        fileName: query.file_name,
        content,
        operator: dashboardActor(user.email),
        keyring,
        ...(query.format ? { format: query.format } : {}),
      });
      await recordAudit(db, {
        actor: dashboardActor(user.email),
        action: "bank_statement.imported",
        objectType: "bank_statement_import",
        objectId: result.importId,
        details: { file_name: query.file_name, lines: result.lines, unmatched: result.unmatched },
      });
      res.status(201).json({ ...statementImportJson(result), unmatched_lines: await listUnmatchedStatementLines(db) });
    },
  );

  return router;
}
