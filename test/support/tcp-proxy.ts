import { connect, createServer, type Server, type Socket } from "node:net";

/**
 * A TCP proxy in front of the database, so a test can cut the service off from PostgreSQL and
 * restore it without restarting either: `down()` drops every connection and refuses new ones,
 * `up()` accepts again on the same port.
 */
export interface TcpProxy {
  port: number;
  down(): Promise<void>;
  up(): Promise<void>;
  close(): Promise<void>;
}

export async function startTcpProxy(target: { host: string; port: number } | { path: string }): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  let server: Server | undefined;
  let port = 0;
  const listen = () =>
    new Promise<void>((resolve) => {
      server = createServer((client) => {
        const upstream = "path" in target ? connect(target.path) : connect(target.port, target.host);
        for (const s of [client, upstream]) {
          sockets.add(s);
          s.on("close", () => sockets.delete(s));
          s.on("error", () => {
            client.destroy();
            upstream.destroy();
          });
        }
        client.pipe(upstream).pipe(client);
      });
      server.listen(port, "127.0.0.1", () => {
        const address = server?.address();
        if (address && typeof address === "object") port = address.port;
        resolve();
      });
    });
  const down = async () => {
    const s = server;
    server = undefined;
    for (const socket of sockets) socket.destroy();
    if (s) await new Promise<void>((resolve) => s.close(() => resolve()));
  };
  await listen();
  return {
    get port() {
      return port;
    },
    down,
    up: listen,
    close: down,
  };
}

/** Where a connection string points: a TCP host:port or a Unix socket directory. */
export function connectionTarget(connectionString: string): { host: string; port: number } | { path: string } {
  const url = new URL(connectionString);
  const socketDir = url.searchParams.get("host");
  if (socketDir) return { path: `${socketDir}/.s.PGSQL.${url.port || "5432"}` };
  return { host: url.hostname, port: Number(url.port || 5432) };
}

/** The same database reached through the proxy. */
export function viaProxy(connectionString: string, proxyPort: number): string {
  const url = new URL(connectionString);
  url.searchParams.delete("host");
  url.hostname = "127.0.0.1";
  url.port = String(proxyPort);
  return url.toString();
}
