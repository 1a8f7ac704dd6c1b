import { randomUUID } from "node:crypto";
import { AppError, type ChainId, feeMicros, type Logger, ServiceUnavailableError, toUsdMicros } from "@mp/core";
import { type Database, LeadershipLostError, type Queryable, settleInOrder } from "@mp/db";
import { appendDepositEvents } from "@mp/events";
import { cryptoAllowedSql, openMerchantAccounts, postDepositCredits } from "@mp/ledger";
import { type AddressScreening, type RateProvider, recordSanctionsMatch, type SanctionsHit } from "@mp/providers";
import { screenDepositSenders } from "./screen-deposit-senders.ts";

export interface ConfirmOptions {
  db: Database;
  chain: ChainId;
  head: number;
  rates: RateProvider;
  logger: Logger;
  failpoint: (name: string) => void | Promise<void>;
  /** The leadership guard (assertLeader): run first in every write transaction. */
  fence: (q: Queryable) => Promise<void>;
  /** Sanctions screening of each deposit's sender (docs/sanctions.md); absent: none (tests). */
  screening?: AddressScreening | undefined;
  /** Deposits looked at per call; the rest wait for the next iteration. */
  limit?: number;
}

interface UsdRate {
  rate: string;
  at: Date;
}

/**
 * Largest number of deposits confirmed per iteration, in two concurrent transactions (confirmBatch;
 * the loop continues at once while there is work). Large enough that per-transaction costs vanish
 * in a catch-up, small enough that the ledger's system balance rows (which every credit locks) are
 * never held for long.
 */
const DEFAULT_LIMIT = 2_000;

/** What one call did. */
export interface ConfirmResult {
  confirmed: number;
  /** Per asset: deposits with their confirmations still waiting for a USD rate (assets with none absent). */
  awaitingRate: Map<string, number>;
}

/** Deposits of `chain` in blocks deep enough at $2 (head): head - block_height + 1 >= required. */
const DEEP_ENOUGH = "chain = $1 AND status = 'PENDING' AND block_height <= $2::bigint + 1 - required_confirmations";

/**
 * Confirms the PENDING deposits of the chain with enough confirmations at `head`, up to `limit`
 * of them in two concurrent transactions (confirmBatch): lock the rows, keep those still PENDING,
 * value each in USD at the provider's rate now (stablecoins too: the sandbox quotes them at 1,
 * production from the market, rounded to 1 within the par band), take the merchant's fee (a
 * transfer's funding address too: the part an intent takes gets it back when applied, and until
 * then the credit is reserved, see @mp/ledger funding-deposits.ts), mark them CONFIRMED with their
 * credit entries, each with its `deposit.confirmed` event, and post the credits in bulk. A deposit
 * whose customer may not receive crypto when it confirms (a rejected verification) is credited to
 * the merchant's held account instead of available, marked HELD, and gets `deposit.held` too; so is
 * one from a sender a sanctions list names (held_reason sanctions_match, the match recorded). The
 * row lock and the ledger's per-deposit idempotency make the credit
 * exactly-once whatever crashes or repeats.
 *
 * Rates are asked per asset first (outside any transaction). A deposit whose asset has no rate is
 * never valued at a guess: it stays PENDING, marked awaiting_rate_since (the API shows it), and is
 * credited at the first iteration that has a rate. Only assets with a rate are selected, so any
 * number of such deposits never holds back the others.
 */
export async function confirmDeposits(options: ConfirmOptions): Promise<ConfirmResult> {
  const { db, chain, head, logger } = options;
  const assets = await db.query<{ asset: string; deposits: string }>(
    `SELECT asset, count(*) AS deposits FROM deposits WHERE ${DEEP_ENOUGH} GROUP BY asset`,
    [chain, head],
  );
  const rates = new Map<string, UsdRate>();
  const awaitingRate = new Map<string, number>();
  for (const { asset, deposits } of assets.rows) {
    const rate = await rateOf(options, asset);
    if (!("error" in rate)) {
      rates.set(asset, rate);
      continue;
    }
    awaitingRate.set(asset, Number(deposits));
    const marked = await db.tx(async (client) => {
      await options.fence(client);
      return client.query(
        `UPDATE deposits SET awaiting_rate_since = now() WHERE ${DEEP_ENOUGH} AND asset = $3 AND awaiting_rate_since IS NULL`,
        [chain, head, asset],
      );
    });
    // Said once per deposit that starts waiting, not at every iteration it goes on waiting.
    if ((marked.rowCount ?? 0) > 0) {
      logger.warn(
        { chain, asset, deposits: marked.rowCount, err: String(rate.error) },
        "no USD rate for the asset: its confirmed deposits wait for one, uncredited",
      );
    }
  }
  if (rates.size === 0) return { confirmed: 0, awaitingRate };
  const { rows } = await db.query<{ id: string; asset: string; merchant_id: string }>(
    `SELECT id, asset, merchant_id FROM deposits WHERE ${DEEP_ENOUGH} AND asset = ANY($3::text[])
      ORDER BY block_height, id LIMIT $4`,
    [chain, head, [...rates.keys()], options.limit ?? DEFAULT_LIMIT],
  );
  const ready = new Map<string, UsdRate>();
  const merchantIds = new Set<string>();
  for (const row of rows) {
    const rate = rates.get(row.asset);
    if (!rate) continue;
    ready.set(row.id, rate);
    merchantIds.add(row.merchant_id);
  }
  const ids = [...ready.keys()];
  const sanctioned = await screenDepositSenders(db, options.screening, ids);
  const confirmed = await confirmBatch(options, ids, { rates: ready, sanctioned, merchantIds: [...merchantIds] });
  return { confirmed, awaitingRate };
}

/**
 * What was read of a batch's deposits before any transaction: by deposit id its USD rate and its
 * sender's sanctions hit; the merchants the batch credits.
 */
interface BatchLookups {
  rates: ReadonlyMap<string, UsdRate>;
  sanctioned: ReadonlyMap<string, SanctionsHit>;
  merchantIds: readonly string[];
}

/**
 * Transactions a batch is split into, run at once on connections of their own: while one holds the
 * ledger's balance rows for its journal statements, the other updates its deposits and appends its
 * events (confirmLocked), so the database's work is not one backend's. Two: the database of a
 * small deployment has two cores, and the chunks meet at the balance rows anyway.
 */
const CONCURRENT_CHUNKS = 2;

/** Below this many deposits a batch is not split: one transaction costs less than two. */
const SPLIT_FROM = 200;

/**
 * Confirms the batch in at most CONCURRENT_CHUNKS transactions at once, each with set-based
 * statements (one lock of its rows, one update, one insert of its events, one bulk credit): any
 * failure rolls back its whole chunk, nothing half-credited (confirmChunk).
 */
async function confirmBatch(options: ConfirmOptions, ids: readonly string[], lookups: BatchLookups): Promise<number> {
  if (ids.length === 0) return 0;
  const chunks = ids.length < SPLIT_FROM ? 1 : CONCURRENT_CHUNKS;
  const size = Math.ceil(ids.length / chunks);
  if (chunks > 1) {
    // Opened first and committed: a merchant's first credit in both chunks would otherwise open its
    // accounts in one and make the other wait for its COMMIT before its own journal statements.
    await options.db.tx(async (client) => {
      await options.fence(client);
      await openMerchantAccounts(client, lookups.merchantIds);
    });
  }
  // Both are awaited before either's failure is thrown: no transaction is left running behind it.
  const confirmed = await settleInOrder(
    ...Array.from({ length: chunks }, (_, i) => confirmChunk(options, ids.slice(i * size, (i + 1) * size), lookups)),
  );
  return confirmed.reduce((sum, n) => sum + n, 0);
}

/**
 * Confirms a chunk in ONE transaction. A failing chunk is then confirmed one deposit per
 * transaction, so one merchant's bad deposit (a check that throws, a conflicting entry) does not
 * hold back the others: it stays PENDING, logged, and is tried again at the next iteration. When none
 * goes through alone either (a crash, or one failing deposit due alone), or the failure is not a
 * deposit's (leadership lost, database unavailable), the iteration fails as before and is retried.
 */
async function confirmChunk(options: ConfirmOptions, ids: readonly string[], lookups: BatchLookups): Promise<number> {
  const confirmIn = (depositIds: readonly string[]) =>
    options.db.tx(async (client) => {
      await options.fence(client);
      return confirmLocked(client, options, depositIds, lookups);
    });
  if (ids.length === 0) return 0;
  try {
    return await confirmIn(ids);
  } catch (batchError) {
    if (ids.length === 1 || !isDepositsOwnFailure(batchError)) throw batchError;
    options.logger.warn(
      { chain: options.chain, deposits: ids.length, err: String(batchError) },
      "confirming the batch failed: confirming its deposits one by one",
    );
    let confirmed = 0;
    let failed = 0;
    for (const id of ids) {
      try {
        confirmed += await confirmIn([id]);
      } catch (error) {
        if (!isDepositsOwnFailure(error)) throw error;
        failed++;
        options.logger.error(
          { chain: options.chain, depositId: id, err: String(error) },
          "deposit not confirmed: it stays PENDING and is tried again at the next iteration",
        );
      }
    }
    // Not one went through alone: the cause is not a deposit's, the iteration fails as before.
    if (failed === ids.length) throw batchError;
    return confirmed;
  }
}

/** False for failures no deposit causes (leadership lost, database unavailable): retrying each alone cannot help. */
function isDepositsOwnFailure(error: unknown): boolean {
  return !(error instanceof LeadershipLostError || error instanceof ServiceUnavailableError);
}

/**
 * The provider's USD rate for the asset now, or why there is none. Stablecoins too: the sandbox
 * quotes them at 1, production providers from the market (rounded to 1 within the par band).
 */
async function rateOf(options: ConfirmOptions, asset: string): Promise<UsdRate | { error: unknown }> {
  try {
    return { rate: (await options.rates.rateFor(asset)).rate, at: new Date() };
  } catch (error) {
    return { error };
  }
}

/** The deposit (d) is drained by a liquidation address (migrations/0220_liquidation_addresses.sql). */
const DRAINED = "EXISTS (SELECT 1 FROM liquidation_drains ld WHERE ld.deposit_id = d.id)";

interface LockedDeposit {
  id: string;
  merchant_id: string;
  status: string;
  decimals: number;
  amount_raw: string;
  fee_bps: number;
  fee_fixed_micros: string;
  /** Its customer may not receive crypto now (a rejected verification). */
  customer_held: boolean;
  /** To a transfer's funding address, of its intent's asset. */
  funding: boolean;
}

/** One deposit's credit, decided under its row lock. */
interface DepositCredit {
  depositId: string;
  entryId: string;
  merchantId: string;
  rate: UsdRate;
  amount: bigint;
  fee: bigint;
  held: boolean;
  heldReason: "sanctions_match" | "customer_rejected" | null;
  sanctionsHit: SanctionsHit | undefined;
  awaitsApplication: boolean;
}

/**
 * Marks the batch's deposits CONFIRMED with their credit figures. The figures go as one JSON
 * document, not seven arrays: pg escapes every element of an array it sends (and formats every
 * Date), 14,000 calls for a batch of 2,000.
 */
const CONFIRM_DEPOSITS = `UPDATE deposits d SET status = 'CONFIRMED', usd_rate = u.rate, usd_rate_at = u.rate_at,
        amount_usd_micros = u.amount, fee_usd_micros = u.fee, net_amount_usd_micros = u.amount - u.fee,
        credit_entry_id = u.entry_id, confirmed_at = now(), updated_at = now(), awaiting_rate_since = NULL,
        hold_status = CASE WHEN u.held_reason IS NOT NULL THEN 'HELD' END, held_reason = u.held_reason
   FROM json_to_recordset($1::json)
        AS u(id uuid, rate text, rate_at timestamptz, amount numeric, fee numeric, entry_id uuid, held_reason text)
  WHERE d.id = u.id AND d.status = 'PENDING'`;

/**
 * Locks the batch's deposit rows, credits those still PENDING under the lock (the rest were
 * confirmed or reversed meanwhile) and marks them CONFIRMED with their credit entry.
 */
async function confirmLocked(
  client: Queryable,
  options: ConfirmOptions,
  depositIds: readonly string[],
  lookups: BatchLookups,
): Promise<number> {
  const { rows } = await client.query<LockedDeposit>(
    // Every deposit pays the merchant's deposit fee, a transfer's funding address included: only the
    // part an open intent takes gets it back, when the transfer executor applies it (issue 27). One of
    // the intent's asset to its address awaits that application, its net reserved until then.
    // A deposit a liquidation address drains pays no deposit fee: its drain takes the product's fee.
    `SELECT d.id, d.merchant_id, d.status, d.decimals, d.amount_raw::text,
            CASE WHEN ${DRAINED} THEN 0 ELSE m.fee_bps END AS fee_bps,
            CASE WHEN ${DRAINED} THEN '0' ELSE m.fee_fixed_micros::text END AS fee_fixed_micros,
            NOT ${cryptoAllowedSql("c")} AS customer_held,
            EXISTS (SELECT 1 FROM funding_intents i
                     WHERE i.deposit_destination_id = d.destination_id AND i.asset = d.asset) AS funding
       FROM deposits d JOIN merchants m ON m.id = d.merchant_id
       JOIN wallets w ON w.id = d.wallet_id LEFT JOIN customers c ON c.id = w.customer_id
      WHERE d.id = ANY($1::uuid[])
      ORDER BY d.id FOR UPDATE OF d`,
    [depositIds],
  );
  const credits = rows.filter((row) => row.status === "PENDING").map((row) => creditOf(row, lookups));
  if (credits.length === 0) return 0;
  // The deposits and their events first, the credits' journal statements last: the ledger's system
  // balance rows, which every credit locks (postDepositCredits), are held only for the lines and the
  // COMMIT, so the batch's other chunk (confirmBatch) runs its update and events meanwhile.
  // Sent one after the other without waiting (the connection pipelines): the credits' first
  // statement, a read of their accounts, goes ahead, so their documents are built while the server
  // updates the deposits; the events' statement, which renders each deposit as it reads it
  // (appendDepositEvents), runs after the UPDATE and sees it; the credits' entries follow the events.
  // A failure aborts the transaction, and every later statement fails with it (settled in the
  // server's order, so the first failure is the one thrown).
  const posting = postDepositCredits(
    client,
    credits.map((c) => ({
      depositId: c.depositId,
      merchantId: c.merchantId,
      amountUsdMicros: c.amount,
      feeUsdMicros: c.fee,
      held: c.held,
      awaitsApplication: c.awaitsApplication,
      entryId: c.entryId,
    })),
  );
  const updating = client.query(CONFIRM_DEPOSITS, [
    JSON.stringify(
      credits.map((c) => ({
        id: c.depositId,
        entry_id: c.entryId,
        rate: c.rate.rate,
        rate_at: c.rate.at.toISOString(),
        // Strings: exact at any size, and JSON has no bigint.
        amount: c.amount.toString(),
        fee: c.fee.toString(),
        held_reason: c.heldReason,
      })),
    ),
  ]);
  const recordingMatches = recordSanctionsMatches(client, options.chain, credits);
  const appending = appendDepositEvents(
    client,
    credits.flatMap((c) => [
      { type: "deposit.confirmed" as const, depositId: c.depositId },
      ...(c.held ? [{ type: "deposit.held" as const, depositId: c.depositId }] : []),
    ]),
  );
  const [updated, , , posted] = await settleInOrder(updating, recordingMatches, appending, posting);
  if (updated.rowCount !== credits.length) {
    throw new AppError("internal_error", `confirmed ${updated.rowCount} of ${credits.length} locked deposits`);
  }
  // A deposit credited before (the ledger is idempotent per deposit) keeps its first entry: the row
  // names that one. Never the case for a PENDING deposit written by this indexer alone.
  const earlier = posted.filter((p, i) => p.entryId !== credits[i]?.entryId);
  if (earlier.length > 0) {
    await client.query(
      `UPDATE deposits d SET credit_entry_id = p.entry_id
         FROM json_to_recordset($1::json) AS p(id uuid, entry_id uuid) WHERE d.id = p.id`,
      [JSON.stringify(earlier.map((p) => ({ id: p.depositId, entry_id: p.entryId })))],
    );
  }
  await options.failpoint("after-credit");
  return credits.length;
}

/** The locked PENDING deposit's credit: its USD value at the batch's rate, the merchant's fee, whether it is held. */
function creditOf(row: LockedDeposit, lookups: BatchLookups): DepositCredit {
  const rate = lookups.rates.get(row.id);
  if (!rate) throw new AppError("internal_error", `deposit ${row.id} was locked without a rate`);
  const amount = toUsdMicros(BigInt(row.amount_raw), row.decimals, rate.rate);
  // A sanctioned sender's deposit is held whoever the customer is, and says so.
  const sanctionsHit = lookups.sanctioned.get(row.id);
  const held = row.customer_held || sanctionsHit !== undefined;
  return {
    depositId: row.id,
    // Chosen here, before it is posted: the deposit's row names it first (CONFIRM_DEPOSITS).
    entryId: randomUUID(),
    merchantId: row.merchant_id,
    rate,
    amount,
    fee: feeMicros(amount, row.fee_bps, BigInt(row.fee_fixed_micros)),
    held,
    heldReason: sanctionsHit ? "sanctions_match" : held ? "customer_rejected" : null,
    sanctionsHit,
    // A held deposit (a rejected customer, a sanctioned sender) stays the operator's: it funds nothing.
    awaitsApplication: row.funding && !held,
  };
}

async function recordSanctionsMatches(client: Queryable, chain: ChainId, credits: readonly DepositCredit[]) {
  for (const c of credits) {
    if (!c.sanctionsHit) continue;
    await recordSanctionsMatch(client, {
      context: "deposit",
      hit: c.sanctionsHit,
      chain,
      merchantId: c.merchantId,
      reference: c.depositId,
    });
  }
}
