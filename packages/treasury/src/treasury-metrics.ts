import type { Queryable } from "@mp/db";
import { Gauge, type Registry } from "prom-client";
import { countSendsByState, oldestOpenSendAges, readTreasuryBalances } from "./treasury-store.ts";

/**
 * The treasury's gauges, read from the database at every scrape (like the indexer's leader gauges):
 * any process serving /metrics shows them, none needs a key or a node.
 */
export function registerTreasuryMetrics(registry: Registry, db: Queryable): void {
  if (registry.getSingleMetric("treasury_sends")) return;
  new Gauge({
    name: "treasury_sends",
    help: "Treasury send requests per chain and state (queued, waiting_funds, signed, broadcast, confirmed, failed)",
    labelNames: ["chain", "state"],
    registers: [registry],
    async collect() {
      const counts = await countSendsByState(db);
      this.reset();
      for (const c of counts) this.set({ chain: c.chain, state: c.state }, c.count);
    },
  });
  new Gauge({
    name: "treasury_oldest_pending_send_age_seconds",
    help: "Age of the chain's oldest send not yet confirmed or failed (absent when none is open)",
    labelNames: ["chain"],
    registers: [registry],
    async collect() {
      const ages = await oldestOpenSendAges(db);
      this.reset();
      for (const a of ages) this.set({ chain: a.chain }, a.ageSeconds);
    },
  });
  new Gauge({
    name: "treasury_balance",
    help: "What the treasury holds per chain and asset, in whole units, as the signer last read it",
    labelNames: ["chain", "asset"],
    registers: [registry],
    async collect() {
      const balances = await readTreasuryBalances(db);
      this.reset();
      // A float is fine for a gauge (the CLI shows the exact figure): split so large raw amounts keep their leading digits.
      for (const b of balances) {
        const base = 10n ** BigInt(b.decimals);
        this.set(
          { chain: b.chain, asset: b.asset },
          Number(b.amountRaw / base) + Number(b.amountRaw % base) / Number(base),
        );
      }
    },
  });
}
