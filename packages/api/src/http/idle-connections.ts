import type { Server } from "node:http";

/**
 * How long an idle keep-alive connection stays open. Clients reuse idle connections; a server that
 * closes one just as a client sends on it makes that request fail with ECONNRESET, which the client
 * cannot safely retry (it cannot know whether a POST was seen). So the server must be the side that
 * waits longest: longer than Node's fetch (undici keeps idle sockets 4 s, a loaded machine's timers
 * fire late) and than common proxies' idle timeouts (60 s). Node's default (5 s) races the first:
 * tests on a machine at load 20-30 saw `read ECONNRESET` on requests sent 4-5 s after the last.
 */
export const IDLE_CONNECTION_MS = 65_000;

/** Keeps idle connections open past every client's and proxy's idle timeout (see IDLE_CONNECTION_MS). */
export function keepIdleConnections(server: Server): Server {
  server.keepAliveTimeout = IDLE_CONNECTION_MS;
  // Node requires the header timeout to exceed the keep-alive one, or idle sockets are cut by it.
  server.headersTimeout = IDLE_CONNECTION_MS + 1_000;
  return server;
}
