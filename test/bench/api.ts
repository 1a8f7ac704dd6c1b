import { writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { Session } from "node:inspector/promises";
import { createApp, keepIdleConnections } from "@mp/api";
import express from "express";
import { startApiHarness } from "../support/api-harness.ts";
import { type LoadResult, listen, load, printTable } from "./measure.ts";

/**
 * `pnpm bench api`: the authenticated, database-backed GET /v1/customers/{id} against a bare Express
 * handler returning a constant, same process, same machine, same load (50 connections).
 * Targets (issue 33): DB-backed read >= 0.8x the bare handler's throughput, p99 <= 1.3x the bare handler's,
 * both measured in the same run. A second app on the same database looks the key up on every request
 * (`apiKeyCache.ttlMs` 0, what every request did before verified keys were cached): the cache's own
 * gain, measured in the same run. `--alloc-profile FILE` then samples the allocations of one more
 * key + DB load (profileAllocations).
 */
export async function runApiBench(options: { seconds?: number; allocProfile?: string } = {}): Promise<void> {
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
  /** The authenticated read of the bench's customer from the app at `baseUrl`, for `duration` seconds. */
  const readCustomer = (baseUrl: string, duration: number) =>
    load(`${baseUrl}/v1/customers/${customerId}`, {
      connections,
      seconds: duration,
      headers: { "x-service-api-key": apiKey },
    });

  const uncachedApp = createApp({ ...api.deps, apiKeyCache: { ttlMs: 0 } });
  const uncached = await listen({
    listen: (port, host, cb) => keepIdleConnections(uncachedApp.listen(port, host, cb)),
  });

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
  await readCustomer(api.url, 2);

  await readCustomer(uncached.url, 2);

  const reference = await load(`${rawServer.url}/constant`, { connections, seconds: Math.min(seconds, 5) });
  // Two rounds, bare and DB-backed alternating, so a drift of the machine's speed during the run
  // weighs on both sides of the ratio alike.
  const rounds = 2;
  const rows: Array<Record<string, string | number>> = [row("reference: node http constant", reference)];
  const bareResults: LoadResult[] = [];
  const realResults: LoadResult[] = [];
  const uncachedResults: LoadResult[] = [];
  for (let round = 1; round <= rounds; round++) {
    const b = await load(`${bareServer.url}/constant`, { connections, seconds: seconds / rounds });
    const r = await readCustomer(api.url, seconds / rounds);
    const u = await readCustomer(uncached.url, seconds / rounds);
    bareResults.push(b);
    realResults.push(r);
    uncachedResults.push(u);
    rows.push(
      row(`bare express constant (round ${round})`, b),
      row(`GET /v1/customers/{id} (key + DB, round ${round})`, r),
      row(`same, key looked up every request (round ${round})`, u),
    );
  }
  const mean = (results: LoadResult[]) => results.reduce((sum, x) => sum + x.requestsPerSecond, 0) / results.length;
  const ratio = mean(realResults) / mean(bareResults);
  const worstP99 = Math.max(...realResults.map((r) => r.p99Ms));
  const bareP99 = Math.max(...bareResults.map((r) => r.p99Ms));
  const p99Ratio = worstP99 / Math.max(1, bareP99);
  printTable(
    `API read benchmark (${connections} connections, ${seconds}s per path in ${rounds} rounds, database: ${process.env.DATABASE_URL ? "PostgreSQL server" : "embedded PGlite"})`,
    rows,
  );
  process.stdout.write(
    `ratio (DB-backed / bare, mean req/s): ${ratio.toFixed(2)}x (target >= 0.80x); p99 (worst round) ${worstP99} ms vs bare ${bareP99} ms: ${p99Ratio.toFixed(2)}x (target <= 1.30x) -> ${
      ratio >= 0.8 && p99Ratio <= 1.3 ? "MET" : "NOT MET"
    }\n`,
  );
  const cpu = (results: LoadResult[]) => results.reduce((sum, x) => sum + x.cpuMicrosPerRequest, 0) / results.length;
  process.stdout.write(
    `process CPU per request (server + load generator): bare ${Math.round(cpu(bareResults))} µs, key + DB ${Math.round(cpu(realResults))} µs, key looked up every request ${Math.round(cpu(uncachedResults))} µs\n`,
  );
  // On 2 saturated cores throughput follows the machine's CPU per request, not the server thread's.
  const split = (results: LoadResult[], part: keyof LoadResult["cpuSplit"]) =>
    Math.round(results.reduce((sum, x) => sum + x.cpuSplit[part], 0) / results.length);
  const parts = ["mainThread", "helperThreads", "loadGenerator", "postgres"] as const;
  process.stdout.write(
    `CPU per request by part (${parts.join(" / ")}), bare: ${parts.map((p) => split(bareResults, p)).join(" / ")} µs; key + DB: ${parts.map((p) => split(realResults, p)).join(" / ")} µs\n`,
  );
  process.stdout.write(
    `key looked up every request (no cache), mean req/s: ${(mean(uncachedResults) / mean(bareResults)).toFixed(2)}x bare; p99 (worst round) ${Math.max(...uncachedResults.map((r) => r.p99Ms))} ms\n`,
  );
  if (options.allocProfile) {
    await profileAllocations(options.allocProfile, () => readCustomer(api.url, 4));
  }
  for (const { server } of [bareServer, rawServer, uncached]) {
    server.closeAllConnections();
    server.close();
  }
  await api.stop();
}

/**
 * Every allocation of `work` sampled (every 4 KiB), including the objects already collected: the
 * garbage a request leaves is what the collector's time follows. Written as a .heapprofile (Chrome
 * DevTools, Memory tab). Run after the measured rounds: the sampling slows what it watches.
 */
async function profileAllocations(file: string, work: () => Promise<unknown>): Promise<void> {
  const session = new Session();
  session.connect();
  await session.post("HeapProfiler.startSampling", {
    samplingInterval: 4096,
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: true,
  });
  await work();
  const { profile } = await session.post("HeapProfiler.stopSampling");
  session.disconnect();
  writeFileSync(file, JSON.stringify(profile));
  process.stdout.write(`allocations of a 4 s key + DB load (sampled) written to ${file}\n`);
}

function row(path: string, result: LoadResult): Record<string, string | number> {
  return {
    path,
    "req/s": Math.round(result.requestsPerSecond),
    "p50 ms": result.p50Ms,
    "p99 ms": result.p99Ms,
    "CPU µs/req": result.cpuMicrosPerRequest,
    "main µs": result.cpuSplit.mainThread,
    "helpers µs": result.cpuSplit.helperThreads,
    "loadgen µs": result.cpuSplit.loadGenerator,
    "postgres µs": result.cpuSplit.postgres,
    errors: result.errors + result.non2xx,
  };
}
