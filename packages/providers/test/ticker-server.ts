import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export interface Reply {
  status?: number;
  body: string;
  /** The HTTP Date header to send; default the server's clock. */
  date?: string;
  /** Never answer (a hung upstream). */
  hang?: boolean;
}

export interface TickerServer {
  readonly url: string;
  /** Request targets seen, e.g. "/0/public/Ticker?assetVersion=1". */
  readonly requests: string[];
  reply(reply: Reply): void;
  stop(): Promise<void>;
}

/** A real HTTP server on 127.0.0.1 answering every request with the current reply. */
export async function startTickerServer(): Promise<TickerServer> {
  let current: Reply = { status: 503, body: "{}" };
  const requests: string[] = [];
  const server: Server = createServer((request, response) => {
    requests.push(request.url ?? "");
    if (current.hang) return;
    response.statusCode = current.status ?? 200;
    response.setHeader("content-type", "application/json");
    if (current.date !== undefined) response.setHeader("date", current.date);
    response.end(current.body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    reply: (reply) => {
      current = reply;
    },
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
