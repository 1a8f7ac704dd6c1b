import { parseOrThrow, rfc3339 } from "@mp/api";
import type { Queryable } from "@mp/db";
import { type Request, type Response, Router } from "express";
import { z } from "zod";
import { userWith } from "./require-session.ts";

const text = z.string().trim().min(1).max(200);

/** The audit log viewer's filters: each narrows the rows; `before` is the last row id of the previous page. */
export const auditLogQuery = z.object({
  actor: text.optional().describe("exact, e.g. dashboard:ops@example.com"),
  action: text.optional().describe("exact, e.g. merchant.created"),
  object_type: text.optional(),
  object_id: text.optional(),
  merchant_id: z.uuid("must be a UUID").optional().describe("rows whose details name this merchant"),
  created_from: rfc3339.optional(),
  created_to: rfc3339.optional(),
  before: z.coerce.number().int().positive().optional(),
  limit: z.coerce.number().int().min(1).max(200).default(50),
});
export type AuditLogQuery = z.infer<typeof auditLogQuery>;

interface AuditRow {
  id: string;
  actor: string;
  action: string;
  object_type: string;
  object_id: string;
  details: Record<string, unknown>;
  created_at: Date;
}

/** One page of the audit log, newest first, keyset on the row id (an identity, so it follows insertion). */
export async function readAuditLog(sql: Queryable, query: AuditLogQuery) {
  const where: string[] = [];
  const params: unknown[] = [];
  const add = (clause: (n: string) => string, value: unknown) => {
    if (value === undefined) return;
    params.push(value);
    where.push(clause(`$${params.length}`));
  };
  add((n) => `actor = ${n}`, query.actor);
  add((n) => `action = ${n}`, query.action);
  add((n) => `object_type = ${n}`, query.object_type);
  add((n) => `object_id = ${n}`, query.object_id);
  add((n) => `details->>'merchant_id' = ${n}`, query.merchant_id);
  add((n) => `created_at >= ${n}::timestamptz`, query.created_from);
  add((n) => `created_at <= ${n}::timestamptz`, query.created_to);
  add((n) => `id < ${n}`, query.before);
  params.push(query.limit + 1);
  // By the table's bigint id, not the answer's text alias of it (under which "9" sorts after "10").
  const { rows } = await sql.query<AuditRow>(
    `SELECT id::text, actor, action, object_type, object_id, details, created_at
       FROM operator_audit_log ${where.length > 0 ? `WHERE ${where.join(" AND ")}` : ""}
      ORDER BY operator_audit_log.id DESC LIMIT $${params.length}`,
    params,
  );
  const items = rows.slice(0, query.limit).map((row) => ({ ...row, created_at: row.created_at.toISOString() }));
  return { items, next: rows.length > query.limit ? (items.at(-1)?.id ?? null) : null };
}

/** The operator's audit log viewer (admin only): every row of `operator_audit_log`, filtered. */
export function operatorAuditRoutes(db: Queryable): Router {
  const router = Router();
  router.get("/operator/audit-log", async (req: Request, res: Response) => {
    userWith(res, "operator");
    res.json(await readAuditLog(db, parseOrThrow(auditLogQuery, req.query ?? {}, "query")));
  });
  return router;
}
