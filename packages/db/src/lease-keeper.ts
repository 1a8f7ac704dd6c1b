import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import type { Logger } from "@mp/core";
import type pg from "pg";
import type { Database } from "./database-contract.ts";
import { createHeldLeases } from "./held-leases.ts";
import { createJitteredPoll } from "./jittered-poll.ts";
import { createKeeperSession } from "./keeper-session.ts";
import { balance } from "./lease-balance.ts";
import { giveUp, renew } from "./lease-renewal.ts";
import { type Lease, releaseLease } from "./leases.ts";
import { isConnectionError } from "./sql-state.ts";

/**
 * One process's side of leadership (issue 19). Why this shape:
 *
 * - **Bounded.** A lease row per resource, renewed every `seconds / 4` and judged by the database's
 *   clock only: a holder that hangs or whose host vanishes loses it `seconds` after its last renewal.
 *   (Session settings such as idle_session_timeout or TCP keepalives bound a vanished host but not a
 *   hung process whose socket stays open, and they do not give a fencing token.)
 * - **Fenced.** Each lease carries an epoch; every write under it runs assertLeader first, in its
 *   transaction (leases.ts). Locally, a lease counts as held only until `seconds` after its last
 *   renewal was *sent*, less a tenth: the database set its expiry later than that, so a holder that
 *   cannot reach the database stops using the lease before the database lets anyone else take it.
 * - **Fast after a kill.** A lease cannot tell that its holder was killed. The keeper's dedicated
 *   session holds a liveness lock (migrations/0082): kill -9 closes the socket, the server frees the
 *   lock at once, and standbys, polling every ~`pollMs` with jitter, may take such a holder's leases
 *   without waiting for expiry.
 * - **Spread.** Keepers of one role share their resources: each heartbeats a row with what it wants;
 *   a free resource goes to a live process holding the fewest, and a process holding two more than
 *   another live process that wants one of its resources hands one over (one per poll), so shares
 *   differ by at most one: none holds more than ceil(resources / live processes) while others stand
 *   by. A process that wants a resource no one else wants still takes it, whatever its share.
 */
export interface LeaseKeeper {
  /** This process's identity in leases and lease_holders: host:pid:random. */
  readonly holder: string;
  readonly host: string;
  /** The bound: a holder that stops renewing loses its leases this long after its last renewal. */
  readonly seconds: number;
  /** Declares that this process competes for `name` (a standby until it gets it). */
  want(name: string): void;
  /** No longer competes for `name`: hands it over if held. */
  unwant(name: string): Promise<void>;
  /**
   * The lease on `name` if this process leads it (locally valid; the write's guard has the last
   * word), after the first poll has run. Starts the keeper on first use.
   */
  acquire(name: string): Promise<Lease | null>;
  /** The caller learnt (a LeadershipLostError) that `lease` is gone: stop counting it as held. */
  lost(lease: Lease): void;
  /** Hands every lease over, removes the heartbeat row and the liveness lock; idempotent. */
  stop(): Promise<void>;
}

export interface LeaseKeeperOptions {
  /**
   * The database the keeper's dedicated connection comes from: it is pinned for the keeper's life
   * (a pool of its own in a service, so it never starves the pool that serves the writes).
   */
  db: Database;
  /** Shares are counted among the live keepers of one role ("indexer"). */
  role: string;
  /** The bound (INDEXER_LEASE_SECONDS). */
  seconds: number;
  logger: Logger;
  /** How often a keeper looks for free resources (default 250 ms, ±25% jitter). */
  pollMs?: number;
}

const DEFAULT_POLL_MS = 250;

export function createLeaseKeeper(options: LeaseKeeperOptions): LeaseKeeper {
  const { db, role, seconds, logger } = options;
  const renewEveryMs = (seconds * 1000) / 4;
  const host = hostname();
  const holder = `${host}:${process.pid}:${randomBytes(4).toString("hex")}`;
  const wanted = new Set<string>();
  // Counted as held until the bound less a tenth after a renewal was sent: a margin for this host's
  // clock running slower than the database's (the guard has the last word).
  const held = createHeldLeases(logger, seconds * 900);
  const session = createKeeperSession(db, holder);
  const self = { holder, role, seconds, logger };
  let lastRenewAt = Number.NEGATIVE_INFINITY;
  let stopped = false;
  /** Set after giving leases up: this poll leaves them to the standbys. */
  let skipBalance = false;

  /** The session; a new one renews at once, and one replacing a lost one gives every lease up first. */
  const openSession = async (): Promise<pg.PoolClient> => {
    const { client, fresh, reconnected } = await session.open();
    if (!fresh) return client;
    lastRenewAt = Number.NEGATIVE_INFINITY;
    if (!reconnected || held.size === 0) return client;
    // While the old session was gone, standbys saw this holder dead and were entitled to take
    // its leases at any moment: give them all up rather than race them (new epochs all round).
    const given = held.takeAll();
    for (const h of given) await releaseLease(client, h.lease);
    logger.warn({ holder, leases: given.map((h) => h.lease.name) }, "lost the database session: leases given up");
    skipBalance = true;
    return client;
  };

  const cycle = async (): Promise<void> => {
    try {
      const client = await openSession();
      if (performance.now() - lastRenewAt >= renewEveryMs) {
        lastRenewAt = await renew(client, held, { ...self, host, wants: [...wanted] });
      }
      if (!stopped && !skipBalance)
        await balance(client, held, { ...self, wanted: [...wanted], stopped: () => stopped });
      skipBalance = false;
    } catch (error) {
      // A lost connection is reconnected at the next poll (and its liveness lock taken again); any
      // other failure (a renewal's lock wait timing out) is retried as it is. Leases not renewed in
      // time stop counting as held (held.valid()).
      if (isConnectionError(error)) session.markBroken();
      logger.warn({ holder, err: String(error) }, "lease keeper poll failed");
    }
  };

  const poll = createJitteredPoll(options.pollMs ?? DEFAULT_POLL_MS, cycle);

  const unwant = async (name: string): Promise<void> => {
    wanted.delete(name);
    await giveUp(held, name, session.current() ?? db, logger);
  };

  return {
    holder,
    host,
    seconds,
    want(name) {
      wanted.add(name);
    },
    unwant,
    async acquire(name) {
      if (stopped) return null;
      wanted.add(name);
      await poll.start();
      held.valid();
      return held.get(name)?.lease ?? null;
    },
    lost(lease) {
      const h = held.get(lease.name);
      if (h && h.lease.epoch === lease.epoch) held.delete(lease.name);
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      await poll.stop();
      for (const name of held.names()) await unwant(name);
      wanted.clear();
      await session.close(async (c) => {
        await c.query("DELETE FROM lease_holders WHERE id = $1", [holder]);
      });
    },
  };
}
