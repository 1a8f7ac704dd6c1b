import { createServer, type Server, type Socket } from "node:net";
import type { PGlite } from "@electric-sql/pglite";

/**
 * Serves one PGlite instance to many PostgreSQL wire-protocol clients over a Unix socket.
 *
 * PGlite is a single backend session, so concurrent clients must take turns. pglite-socket takes
 * turns per *message*, which lets client B's Parse land between client A's Parse and Bind outside a
 * transaction ("unnamed prepared statement does not exist") and corrupts concurrent use. Here a turn
 * is a whole message group up to Sync (or a simple Query), and a client that leaves the backend
 * inside a transaction keeps its turn until the transaction ends (or its connection drops, which
 * rolls the transaction back). That gives each client the isolation a real server's sessions give
 * for our purposes: its statements and its transactions are never interleaved with another's.
 */

const SSL_REQUEST = 80877103;
const CANCEL_REQUEST = 80877102;
const GSS_REQUEST = 80877104;
const SYNC = 0x53; // 'S'
const QUERY = 0x51; // 'Q'
const TERMINATE = 0x58; // 'X'
const FLUSH = 0x48; // 'H'

/** Whose turn it is on the backend; waiting clients queue in arrival order. */
class BackendTurn {
  private owner: number | null = null;
  private readonly waiters: Array<{ id: number; resume: () => void }> = [];

  async acquire(id: number): Promise<void> {
    if (this.owner === null || this.owner === id) {
      this.owner = id;
      return;
    }
    await new Promise<void>((resume) => this.waiters.push({ id, resume }));
  }

  release(id: number): void {
    if (this.owner !== id) return;
    const next = this.waiters.shift();
    this.owner = next ? next.id : null;
    next?.resume();
  }

  isOwner(id: number): boolean {
    return this.owner === id;
  }
}

export interface PgliteWireServer {
  close(): Promise<void>;
}

export async function servePglite(db: PGlite, socketPath: string): Promise<PgliteWireServer> {
  const turn = new BackendTurn();
  const sockets = new Set<Socket>();
  let nextId = 1;

  const run = async (id: number, group: Uint8Array): Promise<Uint8Array> => {
    await turn.acquire(id);
    try {
      return await db.execProtocolRaw(group);
    } finally {
      // Keep the turn while this client's transaction is open.
      if (!db.isInTransaction()) turn.release(id);
    }
  };

  const abandon = async (id: number): Promise<void> => {
    if (!turn.isOwner(id)) return;
    try {
      if (db.isInTransaction()) await db.exec("ROLLBACK");
    } finally {
      turn.release(id);
    }
  };

  const handle = (socket: Socket) => {
    const id = nextId++;
    sockets.add(socket);
    let buffer: Buffer = Buffer.alloc(0);
    let started = false;
    let pending: Buffer[] = [];
    // Messages of one connection are processed strictly in order.
    let chain: Promise<void> = Promise.resolve();
    let closed = false;

    const send = (bytes: Uint8Array) => {
      if (!closed && bytes.length > 0 && socket.writable) socket.write(bytes);
    };
    const enqueue = (work: () => Promise<void>) => {
      chain = chain.then(work).catch(() => {
        socket.destroy();
      });
    };

    socket.on("data", (chunk: Buffer) => {
      buffer = buffer.length === 0 ? chunk : Buffer.concat([buffer, chunk]);
      for (;;) {
        if (!started) {
          if (buffer.length < 8) return;
          const length = buffer.readInt32BE(0);
          if (buffer.length < length) return;
          const code = buffer.readInt32BE(4);
          const message = buffer.subarray(0, length);
          buffer = buffer.subarray(length);
          if (code === SSL_REQUEST || code === GSS_REQUEST) {
            send(Buffer.from("N"));
            continue;
          }
          if (code === CANCEL_REQUEST) {
            socket.end();
            return;
          }
          started = true;
          const startup = Uint8Array.from(message);
          enqueue(async () => send(await run(id, startup)));
          continue;
        }
        if (buffer.length < 5) return;
        const type = buffer[0] as number;
        const total = 1 + buffer.readInt32BE(1);
        if (buffer.length < total) return;
        const message = buffer.subarray(0, total);
        buffer = buffer.subarray(total);
        if (type === TERMINATE) {
          socket.end();
          return;
        }
        pending.push(Buffer.from(message));
        if (type === SYNC || type === QUERY || type === FLUSH) {
          const group = Uint8Array.from(Buffer.concat(pending));
          pending = [];
          enqueue(async () => send(await run(id, group)));
        }
      }
    });
    const finish = () => {
      if (closed) return;
      closed = true;
      sockets.delete(socket);
      chain = chain.then(() => abandon(id)).catch(() => {});
    };
    socket.on("close", finish);
    socket.on("error", finish);
  };

  const server: Server = createServer(handle);
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(socketPath, () => resolve());
  });
  return {
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
