import { connect, type Socket } from "node:net";
import { describe, expect, it } from "vitest";
import { useApiHarness } from "../support/api-harness.ts";

/** Node's own keep-alive timeout: the server used to close idle connections after it. */
const NODE_DEFAULT_KEEP_ALIVE_MS = 5_000;

function healthRequest(host: string): string {
  return `GET /health HTTP/1.1\r\nHost: ${host}\r\nConnection: keep-alive\r\n\r\n`;
}

/** Writes one request and resolves with the status line of its answer. */
function ask(socket: Socket, host: string): Promise<string> {
  return new Promise((resolve, reject) => {
    let received = "";
    const onData = (chunk: Buffer) => {
      received += chunk.toString("latin1");
      const end = received.indexOf("\r\n\r\n");
      const length = /content-length: (\d+)/i.exec(received)?.[1];
      if (end >= 0 && length !== undefined && received.length >= end + 4 + Number(length)) {
        socket.off("data", onData);
        resolve(received.split("\r\n")[0] ?? "");
      }
    };
    socket.on("data", onData);
    socket.once("error", reject);
    socket.write(healthRequest(host));
  });
}

describe("idle keep-alive connections", () => {
  const { api } = useApiHarness();

  it("stay open past every client's idle timeout, so a request sent on a reused connection is never reset", async () => {
    const { hostname, port } = new URL(api.url);
    const socket = connect(Number(port), hostname);
    await new Promise<void>((resolve, reject) => socket.once("connect", resolve).once("error", reject));
    let closedByServer = false;
    socket.once("end", () => {
      closedByServer = true;
    });
    try {
      expect(await ask(socket, `${hostname}:${port}`)).toBe("HTTP/1.1 200 OK");
      // Idle for longer than Node's default: a client (undici keeps idle sockets 4 s) that reuses the
      // connection about then must find it open, not race the server closing it.
      await new Promise((resolve) => setTimeout(resolve, NODE_DEFAULT_KEEP_ALIVE_MS + 1_500));
      expect(closedByServer).toBe(false);
      expect(await ask(socket, `${hostname}:${port}`)).toBe("HTTP/1.1 200 OK");
    } finally {
      socket.destroy();
    }
  });
});
