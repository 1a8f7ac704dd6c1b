import type { Server } from "node:http";
import autocannon from "autocannon";

export interface LoadResult {
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  errors: number;
  non2xx: number;
}

/** Drives `url` with autocannon for `seconds` at `connections`, in this process. */
export async function load(
  url: string,
  options: { connections: number; seconds: number; headers?: Record<string, string> },
): Promise<LoadResult> {
  const result = await autocannon({
    url,
    connections: options.connections,
    duration: options.seconds,
    headers: options.headers ?? {},
    workers: 1,
  });
  return {
    requestsPerSecond: result.requests.average,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    errors: result.errors,
    non2xx: result.non2xx,
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

export function printTable(title: string, rows: Array<Record<string, string | number>>): void {
  process.stdout.write(`\n${title}\n`);
  console.table(rows);
}
