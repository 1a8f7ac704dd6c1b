import { createServer } from "node:http";
import express from "express";
import { startApiHarness } from "../support/api-harness.ts";
import { listen, load, printTable } from "./measure.ts";

/**
 * `pnpm bench api`: the authenticated, database-backed GET /v1/customers/{id} against a bare Express
 * handler returning a constant, same process, same machine, same load (50 connections).
 * Targets (issue): DB-backed read >= 0.5x the bare handler's throughput, p99 < 20 ms.
 */
export async function runApiBench(options: { seconds?: number } = {}): Promise<void> {
  const seconds = options.seconds ?? 10;
  const connections = 50;
  const api = await startApiHarness({ overrides: { rateLimitPerMinute: 10_000_000 } });
  const { apiKey } = await api.merchant();
  const created = await fetch(`${api.url}/v1/customers`, {
    method: "POST",
    headers: { "x-service-api-key": apiKey, "x-idempotency-key": "bench", "content-type": "application/json" },
    body: JSON.stringify({ type: "INDIVIDUAL", first_name: "Bench", last_name: "Mark" }),
  });
  const customerId = ((await created.json()) as { data: { id: string } }).data.id;

  const bare = express();
  bare.get("/constant", (_req, res) => {
    res.json({ data: { ok: true }, error: "", message: "OK", status: "success" });
  });
  const bareServer = await listen(bare);
  // Reference only: the same constant from node's http module without Express, to show what the load
  // generator and this machine allow at 50 connections.
  const raw = createServer((_req, res) => {
    res.setHeader("Content-Type", "application/json; charset=utf-8");
    res.end(JSON.stringify({ data: { ok: true }, error: "", message: "OK", status: "success" }));
  });
  const rawServer = await listen({
    listen: (port, host, cb) => raw.listen(port, host, cb),
  });

  // Warm both paths (JIT, pool connections) before measuring.
  await load(`${bareServer.url}/constant`, { connections, seconds: 2 });
  await load(`${api.url}/v1/customers/${customerId}`, {
    connections,
    seconds: 2,
    headers: { "x-service-api-key": apiKey },
  });

  const reference = await load(`${rawServer.url}/constant`, { connections, seconds: Math.min(seconds, 5) });
  const baseline = await load(`${bareServer.url}/constant`, { connections, seconds });
  const real = await load(`${api.url}/v1/customers/${customerId}`, {
    connections,
    seconds,
    headers: { "x-service-api-key": apiKey },
  });
  const ratio = real.requestsPerSecond / baseline.requestsPerSecond;
  printTable(
    `API read benchmark (${connections} connections, ${seconds}s each, database: ${process.env.DATABASE_URL ? "PostgreSQL server" : "embedded PGlite"})`,
    [
      {
        path: "reference: node http constant",
        "req/s": Math.round(reference.requestsPerSecond),
        "p50 ms": reference.p50Ms,
        "p99 ms": reference.p99Ms,
        errors: reference.errors + reference.non2xx,
      },
      {
        path: "bare express constant",
        "req/s": Math.round(baseline.requestsPerSecond),
        "p50 ms": baseline.p50Ms,
        "p99 ms": baseline.p99Ms,
        errors: baseline.errors + baseline.non2xx,
      },
      {
        path: "GET /v1/customers/{id} (key + DB)",
        "req/s": Math.round(real.requestsPerSecond),
        "p50 ms": real.p50Ms,
        "p99 ms": real.p99Ms,
        errors: real.errors + real.non2xx,
      },
    ],
  );
  process.stdout.write(
    `ratio (DB-backed / bare): ${ratio.toFixed(2)}x (target >= 0.50x); p99 ${real.p99Ms} ms (target < 20 ms) -> ${
      ratio >= 0.5 && real.p99Ms < 20 ? "MET" : "NOT MET"
    }\n`,
  );
  for (const { server } of [bareServer, rawServer]) {
    server.closeAllConnections();
    server.close();
  }
  await api.stop();
}
