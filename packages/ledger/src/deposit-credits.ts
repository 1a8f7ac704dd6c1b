import { randomUUID } from "node:crypto";
import { AppError, ConflictError, ValidationError } from "@mp/core";
import type { Queryable } from "@mp/db";
import { z } from "zod";
import {
  isComplete,
  LEDGER_CURRENCY,
  type LedgerAccount,
  lockBalances,
  type MerchantAccounts,
  merchantAccounts,
} from "./accounts.ts";
import { unappliedFundingHoldId } from "./funding-deposits.ts";
import { placeHold } from "./holds.ts";
import { idSchema, microsSchema, parseInput } from "./inputs.ts";
import { findEntries, insertLines, type LineRow, type LineSpec, sameLines } from "./journal-entry.ts";

const creditInput = z
  .object({
    depositId: idSchema,
    merchantId: idSchema,
    amountUsdMicros: microsSchema,
    feeUsdMicros: microsSchema,
    held: z.boolean().default(false),
    awaitsApplication: z.boolean().default(false),
    entryId: idSchema.optional(),
  })
  .refine((i) => i.feeUsdMicros <= i.amountUsdMicros, {
    message: "fee cannot exceed the amount",
    path: ["feeUsdMicros"],
  })
  .refine((i) => !(i.held && i.awaitsApplication), {
    message: "a held deposit funds nothing: it cannot await application",
    path: ["awaitsApplication"],
  });

/**
 * The three lines of a deposit credit: debit deposit_clearing (gross), credit the merchant the net
 * (gross - fee) and fee_revenue the fee. Always three lines, a zero fee included, so every credit has
 * the same shape and its reversal mirrors it. A held deposit's net goes to merchant_held, out of
 * available until an operator releases or returns it (held-deposits.ts).
 */
export function depositCreditLines(input: {
  amountUsdMicros: bigint;
  feeUsdMicros: bigint;
  held: boolean;
}): LineSpec[] {
  return [
    { account: "deposit_clearing", side: "debit", amount: input.amountUsdMicros },
    {
      account: input.held ? "merchant_held" : "merchant_available",
      side: "credit",
      amount: input.amountUsdMicros - input.feeUsdMicros,
    },
    { account: "fee_revenue", side: "credit", amount: input.feeUsdMicros },
  ];
}

export interface DepositCreditInput {
  depositId: string;
  merchantId: string;
  amountUsdMicros: bigint;
  feeUsdMicros: bigint;
  /** Credit the net to the merchant's held account instead of available (default false). */
  held?: boolean;
  /**
   * A deposit to a transfer's funding address, of its intent's asset: its net is reserved at once by
   * its unapplied-funding hold until the transfer executor applies it (funding-deposits.ts).
   */
  awaitsApplication?: boolean;
  /**
   * The id of the entry when one is posted (default a new random one): a caller that writes it
   * elsewhere in the same transaction before posting (the indexer's confirmation) chooses it first.
   * A deposit already credited keeps its first entry: the result names that one.
   */
  entryId?: string;
}

export interface PostedDepositCredit {
  depositId: string;
  entryId: string;
  /** false when the deposit was already credited and nothing was posted for it. */
  created: boolean;
}

interface AccountRow {
  id: string;
  kind: LedgerAccount["kind"];
  merchant_id: string | null;
}

/** The accounts of every merchant in `merchantIds` (opening those not yet open), in one query when all exist. */
async function accountsOf(client: Queryable, merchantIds: readonly string[]): Promise<Map<string, MerchantAccounts>> {
  const { rows } = await client.query<AccountRow>(
    `SELECT id, kind, merchant_id FROM ledger_accounts
      WHERE currency = $2 AND (merchant_id = ANY($1::uuid[]) OR merchant_id IS NULL)`,
    [merchantIds, LEDGER_CURRENCY],
  );
  const system: Partial<MerchantAccounts> = {};
  const own = new Map<string, Partial<MerchantAccounts>>();
  for (const row of rows) {
    const account = { id: row.id, kind: row.kind, merchantId: row.merchant_id };
    if (row.merchant_id === null) system[row.kind] = account;
    else {
      const accounts = own.get(row.merchant_id) ?? {};
      accounts[row.kind] = account;
      own.set(row.merchant_id, accounts);
    }
  }
  const result = new Map<string, MerchantAccounts>();
  for (const merchantId of merchantIds) {
    const merged = { ...system, ...own.get(merchantId) };
    // A merchant's first posting opens its accounts (and reports an unknown merchant) the usual way.
    result.set(merchantId, isComplete(merged) ? merged : await merchantAccounts(client, merchantId));
  }
  return result;
}

/**
 * Posts the credits of confirmed deposits (one or many) in the caller's transaction with a few
 * set-based statements: one deposit_credit entry per deposit, referenced by the deposit id, with the
 * lines of depositCreditLines. Idempotent per deposit: a deposit already credited with the same figures
 * posts nothing and answers its first entry; with other figures (or for another merchant) it is a
 * ConflictError and nothing is posted. The balance rows of every account touched are locked first,
 * in the ledger's global order, so this never deadlocks with single postings. A deposit that
 * `awaitsApplication` has its net reserved in the same transaction (funding-deposits.ts). Returns one
 * result per input, in input order. A deposit id may appear once per call.
 */
export async function postDepositCredits(
  client: Queryable,
  inputs: readonly DepositCreditInput[],
): Promise<PostedDepositCredit[]> {
  if (inputs.length === 0) return [];
  const parsed = inputs.map((input) => parseInput(creditInput, input));
  const specs = parsed.map((input) => ({ ...input, lines: depositCreditLines(input) }));
  const references = specs.map((s) => s.depositId);
  if (new Set(references).size !== references.length) {
    throw new ValidationError("depositId: a deposit appears more than once in one call", "depositId");
  }

  const merchantIds = [...new Set(specs.map((s) => s.merchantId))].sort();
  const accounts = await accountsOf(client, merchantIds);
  const touched = specs.flatMap((spec) => {
    const own = accounts.get(spec.merchantId);
    if (!own) throw new AppError("internal_error", `merchant ${spec.merchantId} has no accounts`);
    // An awaiting deposit's hold moves its net to reserved: locked now, in the global order.
    const reserved = spec.awaitsApplication ? [own.merchant_reserved] : [];
    return [...spec.lines.map((line) => own[line.account]), ...reserved];
  });
  // Read under the locks: a concurrent credit of the same deposit has committed by now. Sent without
  // waiting for the locks' answer (one round trip): the server runs it after the locking statement.
  const [, earlier] = await Promise.all([
    lockBalances(client, touched),
    findEntries(client, "deposit_credit", references),
  ]);
  const fresh: typeof specs = [];
  const results = new Map<string, PostedDepositCredit>();
  for (const spec of specs) {
    const stored = earlier.get(spec.depositId);
    if (!stored) {
      fresh.push(spec);
      continue;
    }
    if (stored.merchantId !== spec.merchantId || !sameLines(stored.lines, spec.lines)) {
      throw new ConflictError(`deposit_credit ${spec.depositId} was already posted with different figures`);
    }
    results.set(spec.depositId, { depositId: spec.depositId, entryId: stored.id, created: false });
  }

  if (fresh.length > 0) {
    const entryIds = fresh.map((spec) => spec.entryId ?? randomUUID());
    const lines: LineRow[] = [];
    fresh.forEach((spec, i) => {
      const own = accounts.get(spec.merchantId);
      const entryId = entryIds[i];
      if (!own || !entryId) throw new AppError("internal_error", "deposit credit lost its accounts");
      lines.push(
        ...spec.lines.map((line, n) => ({ entryId, lineNo: n + 1, accountId: own[line.account].id, ...line })),
      );
      results.set(spec.depositId, { depositId: spec.depositId, entryId, created: true });
    });
    // The entries and their lines in one round trip: the lines' statement runs after the entries'.
    // The entries go as one JSON document, as the lines do (insertLines): no escape of every element.
    const [inserted, linesInserted] = await Promise.allSettled([
      client.query(
        `INSERT INTO journal_entries (id, kind, reference, merchant_id)
         SELECT e.id, 'deposit_credit', e.reference, e.merchant_id
           FROM jsonb_to_recordset($1::jsonb) AS e(id uuid, reference text, merchant_id uuid, ord int)
          ORDER BY e.ord
         ON CONFLICT DO NOTHING`,
        [
          JSON.stringify(
            fresh.map((s, i) => ({ id: entryIds[i], reference: s.depositId, merchant_id: s.merchantId, ord: i })),
          ),
        ],
      ),
      insertLines(client, lines),
    ]);
    if (inserted.status === "rejected") throw inserted.reason;
    if (inserted.value.rowCount !== fresh.length) {
      // Only a writer that skipped the balance locks can get here; the caller's transaction must roll back.
      throw new ConflictError("deposit_credit entries conflict with other journal entries");
    }
    if (linesInserted.status === "rejected") throw linesInserted.reason;
    for (const spec of fresh) {
      const net = spec.amountUsdMicros - spec.feeUsdMicros;
      if (!spec.awaitsApplication || net === 0n) continue;
      await placeHold(client, {
        holdId: unappliedFundingHoldId(spec.depositId),
        merchantId: spec.merchantId,
        amountUsdMicros: net,
        justCredited: true,
      });
    }
  }
  return specs.map((spec) => {
    const result = results.get(spec.depositId);
    if (!result) throw new AppError("internal_error", `deposit credit ${spec.depositId} has no result`);
    return result;
  });
}
