import { benchDerivation } from "../../packages/custody/bench/derivation.ts";
import { startApiHarness } from "../support/api-harness.ts";
import { load, printTable } from "./measure.ts";

/**
 * `pnpm bench wallets`: derivation cost per chain (custody's own bench: microseconds per address,
 * watch-set load), then wallet creation through the HTTP API with the real database: POST /v1/wallets
 * with a fresh idempotency key per request, as merchants call it.
 * Targets (issue): POST /v1/wallets p50 < 5 ms and >= 300 wallets/s on this 2-core machine.
 */
export async function runWalletsBench(options: { seconds?: number } = {}): Promise<void> {
  benchDerivation();
  const seconds = options.seconds ?? 10;
  const api = await startApiHarness({ overrides: { rateLimitPerMinute: 10_000_000 } });
  try {
    const { apiKey } = await api.merchant();
    const customer = await api.call(apiKey, "/v1/customers", {
      method: "POST",
      idempotencyKey: "bench-customer",
      json: { type: "INDIVIDUAL", first_name: "Bench", last_name: "Wallets" },
    });
    const run = (connections: number, seconds: number) =>
      load(`${api.url}/v1/wallets`, {
        connections,
        seconds,
        method: "POST",
        // A fresh idempotency key per request, as merchants call it.
        headers: { "x-service-api-key": apiKey, "content-type": "application/json", "x-idempotency-key": "[<id>]" },
        body: JSON.stringify({ customer_id: customer.body.data.id, label: "bench" }),
        uniqueIds: true,
      });
    await run(4, 2); // warm-up: JIT, pool connections, the merchant's account key cache
    const rows: Array<Record<string, string | number>> = [];
    for (const connections of [1, 10]) {
      const result = await run(connections, seconds);
      rows.push({
        connections,
        "wallets/s": Math.round(result.requestsPerSecond),
        "p50 ms": result.p50Ms,
        "p99 ms": result.p99Ms,
        errors: result.errors + result.non2xx,
      });
    }
    const { rows: count } = await api.db.query<{ n: string }>("SELECT count(*)::text AS n FROM wallets");
    printTable(
      `POST /v1/wallets (${seconds}s per row, database: ${process.env.DATABASE_URL ? "PostgreSQL server" : "embedded PGlite"}; ${count[0]?.n} wallets created)`,
      rows,
    );
    const single = rows[0];
    const loaded = rows[1];
    process.stdout.write(
      `target: p50 < 5 ms (1 connection: ${single?.["p50 ms"]} ms), >= 300 wallets/s (10 connections: ${loaded?.["wallets/s"]})\n`,
    );
  } finally {
    await api.stop();
  }
}
