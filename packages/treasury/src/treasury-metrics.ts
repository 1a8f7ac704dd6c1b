import type { Queryable } from "@mp/db";
import { Gauge, type Registry } from "prom-client";
import { countHashRefusals } from "./attempt-hash-taken.ts";
import { countReconcileResults } from "./reconcile/reconcile-results.ts";
import { countSendsByState, oldestOpenSendAges, readTreasuryBalances } from "./treasury-store.ts";

/**
 * The treasury's gauges, read from the database at every scrape (like the indexer's leader gauges):
 * any process serving /metrics shows them, none needs a key or a node.
 */
export function registerTreasuryMetrics(registry: Registry, db: Queryable): void {
  if (registry.getSingleMetric("treasury_sends")) return;
  /** A gauge whose series are replaced at every scrape by `read`'s rows, each one series. */
  const scraped = <Label extends string, Row>(
    name: string,
    help: string,
    labelNames: readonly Label[],
    read: (db: Queryable) => Promise<readonly Row[]>,
    series: (row: Row) => [Record<Label, string>, number],
  ) =>
    new Gauge<Label>({
      name,
      help,
      labelNames,
      registers: [registry],
      async collect() {
        const rows = await read(db);
        this.reset();
        for (const row of rows) this.set(...series(row));
      },
    });
  scraped(
    "treasury_sends",
    "Treasury send requests per chain and state (queued, waiting_funds, signed, broadcast, confirmed, failed)",
    ["chain", "state"],
    countSendsByState,
    (c) => [{ chain: c.chain, state: c.state }, c.count],
  );
  scraped(
    "treasury_oldest_pending_send_age_seconds",
    "Age of the chain's oldest send not yet confirmed or failed (absent when none is open)",
    ["chain"],
    oldestOpenSendAges,
    (a) => [{ chain: a.chain }, a.ageSeconds],
  );
  scraped(
    "reconcile_lines",
    "Assets of the chain per status (agrees, unexplained, unreadable) at its latest reconciliation (payments reconcile chains or the dashboard)",
    ["chain", "status"],
    countReconcileResults,
    (r) => [{ chain: r.chain, status: r.status }, r.count],
  );
  scraped(
    "reconcile_checked_timestamp_seconds",
    "Unix time of the chain's latest reconciliation",
    ["chain"],
    async (q) => {
      const latest = new Map<string, number>();
      for (const r of await countReconcileResults(q)) {
        latest.set(r.chain, Math.max(latest.get(r.chain) ?? 0, r.checkedAt.getTime() / 1000));
      }
      return [...latest];
    },
    ([chain, at]) => [{ chain }, at],
  );
  scraped(
    "treasury_attempt_hash_refusals",
    "Signed transactions (sweep batches, sends) not stored because a stored attempt of the chain has their hash; each is signed again in a later pass",
    ["chain"],
    countHashRefusals,
    (r) => [{ chain: r.chain }, r.refusals],
  );
  scraped(
    "treasury_balance",
    "What the treasury holds per chain and asset, in whole units, as the signer last read it",
    ["chain", "asset"],
    readTreasuryBalances,
    (b) => {
      // A float is fine for a gauge (the CLI shows the exact figure): split so large raw amounts keep their leading digits.
      const base = 10n ** BigInt(b.decimals);
      return [
        { chain: b.chain, asset: b.asset },
        Number(b.amountRaw / base) + Number(b.amountRaw % base) / Number(base),
      ];
    },
  );
}
