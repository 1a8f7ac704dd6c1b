import type { Server } from "node:http";
import autocannon from "autocannon";
import { type CpuSplit, cpuSnapshot } from "./cpu-split.ts";

export interface LoadResult {
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  errors: number;
  non2xx: number;
  /**
   * CPU time of this whole process (server and the load generator's thread) per request answered:
   * unlike req/s, barely moved by other jobs sharing the machine.
   */
  cpuMicrosPerRequest: number;
  /** The same by thread, and the local PostgreSQL's (Linux; zeros elsewhere). */
  cpuSplit: CpuSplit;
}

export interface LoadOptions {
  connections: number;
  seconds: number;
  method?: "GET" | "POST";
  headers?: Record<string, string>;
  body?: string;
  /** Each request gets a fresh id wherever `[<id>]` appears in its headers or body (idempotency keys). */
  uniqueIds?: boolean;
}

/**
 * Drives `url` with autocannon for `seconds` at `connections`. The load generator runs in a worker
 * thread, so its own work does not run on the event loop of the server it measures.
 */
export async function load(url: string, options: LoadOptions): Promise<LoadResult> {
  const cpuBefore = process.cpuUsage();
  const snapshot = cpuSnapshot();
  const result = await autocannon({
    url,
    connections: options.connections,
    duration: options.seconds,
    method: options.method ?? "GET",
    headers: options.headers ?? {},
    ...(options.body === undefined ? {} : { body: options.body }),
    idReplacement: options.uniqueIds === true,
    workers: 1,
  });
  const cpu = process.cpuUsage(cpuBefore);
  return {
    requestsPerSecond: result.requests.average,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    errors: result.errors,
    non2xx: result.non2xx,
    cpuMicrosPerRequest: Math.round((cpu.user + cpu.system) / Math.max(1, result.requests.total)),
    cpuSplit: snapshot.split(result.requests.total, cpu.user + cpu.system),
  };
}

export function listen(app: {
  listen: (port: number, host: string, cb: () => void) => Server;
}): Promise<{ url: string; server: Server }> {
  return new Promise((resolve) => {
    const server = app.listen(0, "127.0.0.1", () => {
      const address = server.address();
      resolve({ url: `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`, server });
    });
  });
}

export type BenchRow = Record<string, string | number>;
export interface BenchTable {
  title: string;
  rows: BenchRow[];
}

/** Every table printed since the last `takeTables()`: what `pnpm bench all` writes to its JSON file. */
const printed: BenchTable[] = [];

export function printTable(title: string, rows: BenchRow[]): void {
  printed.push({ title, rows });
  process.stdout.write(`\n${title}\n`);
  console.table(rows);
}

/** The tables printed since the previous call, in order (then forgotten). */
export function takeTables(): BenchTable[] {
  return printed.splice(0);
}
