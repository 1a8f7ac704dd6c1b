import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";

/** One request a receiver got, as it arrived: headers and the exact body bytes. */
export interface Received {
  headers: Record<string, string>;
  body: string;
  at: number;
}

/** What the receiver answers a request with (default 200). */
export type Answer = (received: Received, res: ServerResponse) => void;

/**
 * A real HTTP receiver on 127.0.0.1 whose answer a test changes at will: succeed, fail, answer late
 * or never. `stop()` cuts every connection (a receiver that goes down).
 */
export interface WebhookReceiver {
  url: string;
  received: Received[];
  answer: Answer;
  stop(): Promise<void>;
}

export async function startReceiver(answer: Answer = (_r, res) => res.end("ok"), port = 0): Promise<WebhookReceiver> {
  const receiver: WebhookReceiver = { url: "", received: [], answer, stop: async () => {} };
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(req.headers)) if (typeof value === "string") headers[name] = value;
      const received = { headers, body: Buffer.concat(chunks).toString("utf8"), at: Date.now() };
      receiver.received.push(received);
      receiver.answer(received, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  const address = server.address();
  receiver.url = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}/hooks`;
  receiver.stop = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return receiver;
}

/** A free port on 127.0.0.1 (taken and released), for a receiver that starts later. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return typeof address === "object" && address ? address.port : 0;
}
