import type { Server } from "node:http";
import type { AddressInfo } from "node:net";

/** A token a test node mints at genesis, in chains-config shape. */
export interface TestToken {
  asset: string;
  /** The mint / contract address (what the chains config calls `address`). */
  address: string;
  decimals: number;
}

/** A test node's HTTP port: what the indexer and adapters connect to, and what an outage cuts. */
export interface ServedNode {
  readonly url: string;
  readonly port: number;
  /** Stops serving (state is kept) until `restart()`; also stops the block timer. */
  stop(): Promise<void>;
  /** Serves again on the same port. */
  restart(): Promise<void>;
}

/** What the Solana and Tron test nodes have alike: tokens, a faucet, blocks the caller produces. */
export interface TestChainNode<ReorgOptions> extends ServedNode {
  readonly tokens: readonly TestToken[];
  /** Funded at genesis with the native coin and every token; signs faucet payments and default transfers. */
  readonly faucetAddress: string;
  /** Height (slot) of the newest block. */
  head(): number;
  /** Produces blocks; the first takes every queued transaction. Returns the new heights (slots). */
  mine(count?: number): number[];
  /** Replaces the newest `depth` blocks with a fork at the same heights (new ids). */
  reorg(depth: number, options?: ReorgOptions): number[];
}

/**
 * Serves `server` on 127.0.0.1 (`port` 0 picks a free one) and, with `blockIntervalMs`, produces a
 * block that often (local sandbox) by calling `mineOne`; without it the caller mines.
 */
export async function serveTestNode(
  server: Server,
  options: { port?: number; blockIntervalMs?: number },
  mineOne: () => void,
): Promise<ServedNode> {
  const port = await listen(server, options.port ?? 0);
  let timer: NodeJS.Timeout | undefined;
  const startTimer = () => {
    if (options.blockIntervalMs !== undefined && timer === undefined) {
      timer = setInterval(mineOne, options.blockIntervalMs);
      timer.unref();
    }
  };
  startTimer();
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    stop: async () => {
      if (timer !== undefined) clearInterval(timer);
      timer = undefined;
      await close(server);
    },
    restart: async () => {
      if (!server.listening) await listen(server, port);
      startTimer();
    },
  };
}

/** Listens on 127.0.0.1:`port` (0 picks a free one) and resolves the port it got. */
export function listen(server: Server, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => {
      server.off("error", reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

export function close(server: Server): Promise<void> {
  if (!server.listening) return Promise.resolve();
  return new Promise((resolve) => {
    server.close(() => resolve());
    // Keep-alive connections would hold the port open: an outage must refuse at once.
    server.closeAllConnections();
  });
}
