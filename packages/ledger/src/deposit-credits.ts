import { randomUUID } from "node:crypto";
import { AppError, ConflictError, ValidationError } from "@mp/core";
import { type Queryable, settleInOrder } from "@mp/db";
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
import { MAX_MICROS } from "./inputs.ts";
import {
  findEntries,
  insertLinesDocument,
  type LineRow,
  type LineSpec,
  linesDocument,
  sameLines,
} from "./journal-entry.ts";

const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

interface CheckedCredit {
  depositId: string;
  merchantId: string;
  amountUsdMicros: bigint;
  feeUsdMicros: bigint;
  held: boolean;
  awaitsApplication: boolean;
  entryId: string | undefined;
}

/** A checked credit with its lines (depositCreditLines). */
type CreditSpec = CheckedCredit & { lines: LineSpec[] };

/**
 * The checks of the ledger's other inputs (inputs.ts: ids canonical lowercase, micros within
 * numeric(30, 0)) written out by hand: a catch-up credits thousands of deposits a call, and zod
 * spent 5 us on each warm, 27 us cold (55 ms of a 2,000-deposit batch), this well under 1 us.
 */
function checkCreditInput(input: DepositCreditInput): CreditSpec {
  const id = (field: string, value: unknown): string => {
    if (typeof value !== "string" || !GUID.test(value)) throw new ValidationError(`${field}: Invalid GUID`, field);
    return value.toLowerCase();
  };
  const micros = (field: string, value: unknown): bigint => {
    if (typeof value !== "bigint" || value < 0n || value >= MAX_MICROS) {
      throw new ValidationError(`${field}: expected micros from 0 below 10^30`, field);
    }
    return value;
  };
  const flag = (field: string, value: unknown): boolean => {
    if (value === undefined) return false;
    if (typeof value !== "boolean") throw new ValidationError(`${field}: expected a boolean`, field);
    return value;
  };
  const checked: CreditSpec = {
    depositId: id("depositId", input.depositId),
    merchantId: id("merchantId", input.merchantId),
    amountUsdMicros: micros("amountUsdMicros", input.amountUsdMicros),
    feeUsdMicros: micros("feeUsdMicros", input.feeUsdMicros),
    held: flag("held", input.held),
    awaitsApplication: flag("awaitsApplication", input.awaitsApplication),
    entryId: input.entryId === undefined ? undefined : id("entryId", input.entryId),
    lines: [],
  };
  if (checked.feeUsdMicros > checked.amountUsdMicros) {
    throw new ValidationError("feeUsdMicros: fee cannot exceed the amount", "feeUsdMicros");
  }
  if (checked.held && checked.awaitsApplication) {
    throw new ValidationError(
      "awaitsApplication: a held deposit funds nothing: it cannot await application",
      "awaitsApplication",
    );
  }
  // Set on the checked object rather than spread into a new one: 2,000 spreads of a cold batch cost
  // 7 ms (`pnpm bench indexer --cpu-prof`).
  checked.lines = depositCreditLines(checked);
  return checked;
}

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
 * The entries of `specs` (ids `entryIds`) and their lines as the JSON documents their INSERTs send:
 * one document per statement, not one array per column (pg would escape every element).
 */
function creditDocuments(
  specs: readonly CreditSpec[],
  entryIds: readonly string[],
  accounts: ReadonlyMap<string, MerchantAccounts>,
): { entries: string; lines: string } {
  const lines: LineRow[] = [];
  const entries = specs.map((spec, i) => {
    const own = accounts.get(spec.merchantId);
    const entryId = entryIds[i];
    if (!own || !entryId) throw new AppError("internal_error", "deposit credit lost its accounts");
    spec.lines.forEach((line, n) => {
      lines.push({ entryId, lineNo: n + 1, accountId: own[line.account].id, side: line.side, amount: line.amount });
    });
    return { id: entryId, reference: spec.depositId, merchant_id: spec.merchantId };
  });
  return { entries: JSON.stringify(entries), lines: linesDocument(lines) };
}

/**
 * Posts the credits of confirmed deposits (one or many) in the caller's transaction with a few
 * set-based statements: one deposit_credit entry per deposit, referenced by the deposit id, with the
 * lines of depositCreditLines. Idempotent per deposit: a deposit already credited with the same figures
 * posts nothing and answers its first entry; with other figures (or for another merchant) it is a
 * ConflictError and nothing is posted. A deposit that `awaitsApplication` has its net reserved in the
 * same transaction (funding-deposits.ts). Returns one result per input, in input order. A deposit id
 * may appear once per call.
 *
 * Order (why the ledger's shared balance rows are held only for the lines and the COMMIT): the
 * entries are inserted first, in the order of their references, before any balance row is locked;
 * then the balance rows of every account the new lines touch are locked, in the ledger's global
 * order, and the lines inserted. deposit_credit entries are written here alone, so two calls never
 * wait on each other's entries in a cycle (the same order), and a call waiting for balance rows holds
 * no entry the holder of those rows still has to write (it wrote its own before locking). A
 * concurrent credit of the same deposit makes the insert wait for its transaction: committed, its
 * entry is the earlier one, read back and compared; rolled back, this one is inserted. One call per
 * transaction (the indexer's): a second call would insert entries while holding the first's
 * balance rows.
 */
export async function postDepositCredits(
  client: Queryable,
  inputs: readonly DepositCreditInput[],
): Promise<PostedDepositCredit[]> {
  if (inputs.length === 0) return [];
  const specs = inputs.map(checkCreditInput);
  const references = specs.map((s) => s.depositId);
  if (new Set(references).size !== references.length) {
    throw new ValidationError("depositId: a deposit appears more than once in one call", "depositId");
  }

  const merchantIds = [...new Set(specs.map((s) => s.merchantId))].sort();
  const accounts = await accountsOf(client, merchantIds);
  // Built as if no deposit was credited before (always so in a catch-up).
  const entryIds = specs.map((spec) => spec.entryId ?? randomUUID());
  const planned = creditDocuments(specs, entryIds, accounts);
  const inserted = await client.query<{ reference: string }>(
    `INSERT INTO journal_entries (id, kind, reference, merchant_id)
     SELECT e.id, 'deposit_credit', e.reference, e.merchant_id
       FROM json_to_recordset($1::json) AS e(id uuid, reference text, merchant_id uuid)
      ORDER BY e.reference COLLATE "C"
     ON CONFLICT DO NOTHING
     RETURNING reference`,
    [planned.entries],
  );
  const insertedReferences = new Set(inserted.rows.map((row) => row.reference));
  const skipped = references.filter((reference) => !insertedReferences.has(reference));
  // Credited before, or by a transaction the insert waited for: committed either way, so readable.
  const earlier = skipped.length > 0 ? await findEntries(client, "deposit_credit", skipped) : new Map();
  const fresh: CreditSpec[] = [];
  const freshEntryIds: string[] = [];
  const results = specs.map((spec, i): PostedDepositCredit => {
    const entryId = entryIds[i] as string;
    if (insertedReferences.has(spec.depositId)) {
      fresh.push(spec);
      freshEntryIds.push(entryId);
      return { depositId: spec.depositId, entryId, created: true };
    }
    const stored = earlier.get(spec.depositId);
    // Skipped without an entry of its reference: its id is another entry's.
    if (!stored) throw new ConflictError("deposit_credit entries conflict with other journal entries");
    if (stored.merchantId !== spec.merchantId || !sameLines(stored.lines, spec.lines)) {
      throw new ConflictError(`deposit_credit ${spec.depositId} was already posted with different figures`);
    }
    return { depositId: spec.depositId, entryId: stored.id, created: false };
  });
  if (fresh.length === 0) return results;

  const touched: LedgerAccount[] = [];
  for (const spec of fresh) {
    const own = accounts.get(spec.merchantId);
    if (!own) throw new AppError("internal_error", `merchant ${spec.merchantId} has no accounts`);
    for (const line of spec.lines) touched.push(own[line.account]);
    // An awaiting deposit's hold moves its net to reserved: locked now, in the global order.
    if (spec.awaitsApplication) touched.push(own.merchant_reserved);
  }
  const lines = fresh.length === specs.length ? planned.lines : creditDocuments(fresh, freshEntryIds, accounts).lines;
  // Sent without waiting for the locks' answer (one round trip): the server runs the lines after them.
  await settleInOrder(lockBalances(client, touched), insertLinesDocument(client, lines));
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
  return results;
}
