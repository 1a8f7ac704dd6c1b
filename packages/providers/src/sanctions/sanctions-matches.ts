import { type Queryable, recordAudit } from "@mp/db";
import type { SanctionsHit } from "./address-screening.ts";

/** Where a listed address was met: a deposit's sender, or the destination of a refused payment. */
export type SanctionsMatchContext = "deposit" | "quote" | "payout" | "treasury_send" | "return";
export const SANCTIONS_MATCH_CONTEXTS: readonly SanctionsMatchContext[] = [
  "deposit",
  "quote",
  "payout",
  "treasury_send",
  "return",
];

export interface SanctionsMatchInput {
  context: SanctionsMatchContext;
  hit: SanctionsHit;
  chain: string | null;
  merchantId: string | null;
  /** The deposit's id (recorded once per deposit), a send's idempotency key; null for a quote. */
  reference: string | null;
}

export interface SanctionsMatch extends Omit<SanctionsMatchInput, "hit"> {
  id: string;
  address: string;
  list: string;
  createdAt: Date;
}

/** A match as the CLI's `--json` and the dashboard's operator page show it (snake_case, ISO time). */
export function sanctionsMatchJson(m: SanctionsMatch) {
  return {
    id: m.id,
    context: m.context,
    address: m.address,
    list: m.list,
    chain: m.chain,
    merchant_id: m.merchantId,
    reference: m.reference,
    created_at: m.createdAt.toISOString(),
  };
}

/**
 * Records a match in `sanctions_matches` and in the operators' audit log (`operator_audit_log`,
 * actor `sanctions-screening`), in the caller's transaction. A deposit's match is recorded once
 * however often its confirmation is retried.
 */
export async function recordSanctionsMatch(q: Queryable, input: SanctionsMatchInput): Promise<void> {
  const inserted = await q.query<{ id: string }>(
    `INSERT INTO sanctions_matches (context, address, list, chain, merchant_id, reference)
     VALUES ($1, $2, $3, $4, $5, $6)
     ON CONFLICT (reference) WHERE context = 'deposit' DO NOTHING RETURNING id::text`,
    [input.context, input.hit.address, input.hit.list, input.chain, input.merchantId, input.reference],
  );
  const id = inserted.rows[0]?.id;
  if (id === undefined) return;
  await recordAudit(q, {
    actor: "sanctions-screening",
    action: input.context === "deposit" ? "deposit_held" : "destination_refused",
    objectType: "sanctions_match",
    objectId: id,
    details: {
      context: input.context,
      address: input.hit.address,
      list: input.hit.list,
      chain: input.chain,
      merchant_id: input.merchantId,
      reference: input.reference,
    },
  });
}

interface MatchRow {
  id: string;
  context: SanctionsMatchContext;
  address: string;
  list: string;
  chain: string | null;
  merchant_id: string | null;
  reference: string | null;
  created_at: Date;
}

/** The latest matches first (`payments sanctions matches`, the dashboard), at most `limit`. */
export async function listSanctionsMatches(
  q: Queryable,
  filter: { context?: SanctionsMatchContext; limit?: number } = {},
): Promise<SanctionsMatch[]> {
  const { rows } = await q.query<MatchRow>(
    `SELECT id::text, context, address, list, chain, merchant_id, reference, created_at FROM sanctions_matches
      WHERE ($1::text IS NULL OR context = $1) ORDER BY created_at DESC, id DESC LIMIT $2`,
    [filter.context ?? null, filter.limit ?? 100],
  );
  return rows.map((row) => ({
    id: row.id,
    context: row.context,
    address: row.address,
    list: row.list,
    chain: row.chain,
    merchantId: row.merchant_id,
    reference: row.reference,
    createdAt: row.created_at,
  }));
}
