import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import type { Logger } from "@mp/core";
import type pg from "pg";
import type { Database } from "./database-contract.ts";
import { type Lease, LIVENESS_LOCK_NAMESPACE, releaseLease, renewLeases, tryAcquireLease } from "./leases.ts";
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

interface Held {
  lease: Lease;
  /** performance.now() after which the lease no longer counts as held here. */
  validUntil: number;
}

interface Observed {
  name: string;
  holder: string | null;
  /** No row, expired, or its holder's session is gone: anyone may take it. */
  free: boolean;
}

interface LiveHolder {
  id: string;
  wants: string[];
  held: number;
}

const DEFAULT_POLL_MS = 250;

export function createLeaseKeeper(options: LeaseKeeperOptions): LeaseKeeper {
  const { db, role, seconds, logger } = options;
  const pollMs = options.pollMs ?? DEFAULT_POLL_MS;
  const renewEveryMs = (seconds * 1000) / 4;
  /**
   * How long after a renewal was sent the lease counts as held here: the bound less a tenth, a
   * margin for this host's clock running slower than the database's (the guard has the last word).
   */
  const validMs = seconds * 900;
  const host = hostname();
  const holder = `${host}:${process.pid}:${randomBytes(4).toString("hex")}`;
  const wanted = new Set<string>();
  const held = new Map<string, Held>();
  let client: pg.PoolClient | undefined;
  let broken = false;
  let lastRenewAt = Number.NEGATIVE_INFINITY;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let firstCycle: Promise<void> | undefined;
  let stopped = false;
  /** Sessions opened so far: a second one means the first was lost. */
  let sessions = 0;
  /** Set after giving leases up: this poll leaves them to the standbys. */
  let skipBalance = false;
  const onError = () => {
    broken = true;
  };

  const dropClient = () => {
    const c = client;
    client = undefined;
    if (!c) return;
    c.off("error", onError);
    c.release(true);
  };

  /** The dedicated session, holding the liveness lock; (re)connected after a loss. */
  const session = async (): Promise<pg.PoolClient> => {
    if (client && !broken) return client;
    dropClient();
    const fresh = await db.pool.connect();
    broken = false;
    fresh.on("error", onError);
    try {
      if (db.engine === "postgresql") {
        // A renewal waits behind this process's own guarded writes (they share-lock the row): a
        // short while at most; a longer wait fails and the next poll renews instead.
        await fresh.query("SET lock_timeout = '1s'");
      }
      await fresh.query("SELECT pg_try_advisory_lock($1, hashtext($2))", [LIVENESS_LOCK_NAMESPACE, holder]);
    } catch (error) {
      fresh.off("error", onError);
      fresh.release(true);
      throw error;
    }
    const lostOne = sessions > 0;
    client = fresh;
    sessions++;
    // A new session: the heartbeat (and renewals) go out at once.
    lastRenewAt = Number.NEGATIVE_INFINITY;
    if (lostOne && held.size > 0) {
      // While the old session was gone, standbys saw this holder dead and were entitled to take
      // its leases at any moment: give them all up rather than race them (new epochs all round).
      const given = [...held.values()];
      held.clear();
      for (const h of given) await releaseLease(fresh, h.lease);
      logger.warn({ holder, leases: given.map((h) => h.lease.name) }, "lost the database session: leases given up");
      skipBalance = true;
    }
    return fresh;
  };

  const validHeld = (): Held[] => {
    const now = performance.now();
    for (const [name, h] of held) {
      if (now >= h.validUntil) {
        held.delete(name);
        logger.warn({ lease: name, epoch: h.lease.epoch.toString() }, "lease not renewed in time: no longer leading");
      }
    }
    return [...held.values()];
  };

  const heartbeat = async (c: pg.PoolClient): Promise<void> => {
    await c.query(
      `INSERT INTO lease_holders (id, role, host, pid, wants, started_at, expires_at)
       VALUES ($1, $2, $3, $4, $5, clock_timestamp(), clock_timestamp() + make_interval(secs => $6))
       ON CONFLICT (id) DO UPDATE SET wants = EXCLUDED.wants, expires_at = EXCLUDED.expires_at`,
      [holder, role, host, process.pid, [...wanted], seconds],
    );
    // Rows of processes gone for an hour: nobody shows or counts them any more.
    await c.query("DELETE FROM lease_holders WHERE expires_at < clock_timestamp() - interval '1 hour'");
  };

  const renew = async (c: pg.PoolClient): Promise<void> => {
    const sentAt = performance.now();
    const mine = validHeld();
    await heartbeat(c);
    const renewed = await renewLeases(
      c,
      mine.map((h) => h.lease),
      seconds,
    );
    for (const h of mine) {
      if (renewed.has(h.lease.name)) {
        h.validUntil = sentAt + validMs;
      } else if (held.get(h.lease.name) === h) {
        held.delete(h.lease.name);
        logger.warn(
          { lease: h.lease.name, epoch: h.lease.epoch.toString() },
          "lease lost: another process leads it now",
        );
      }
    }
    lastRenewAt = sentAt;
  };

  const observe = async (c: pg.PoolClient): Promise<{ leases: Observed[]; live: LiveHolder[] }> => {
    const leases = await c.query<Observed>(
      `SELECT w.name, l.holder,
              (l.name IS NULL OR l.expires_at <= clock_timestamp() OR NOT lease_holder_alive(l.holder)) AS free
         FROM unnest($1::text[]) AS w(name) LEFT JOIN leases l ON l.name = w.name`,
      [[...wanted]],
    );
    const live = await c.query<{ id: string; wants: string[]; held: string }>(
      `SELECT h.id, h.wants,
              (SELECT count(*) FROM leases l WHERE l.holder = h.id AND l.expires_at > clock_timestamp()) AS held
         FROM lease_holders h
        WHERE h.role = $1 AND h.expires_at > clock_timestamp() AND lease_holder_alive(h.id)`,
      [role],
    );
    return { leases: leases.rows, live: live.rows.map((r) => ({ id: r.id, wants: r.wants, held: Number(r.held) })) };
  };

  /** Free resources to a process holding the fewest; the larger share hands one over. */
  const balance = async (c: pg.PoolClient): Promise<void> => {
    const { leases, live } = await observe(c);
    const others = live.filter((h) => h.id !== holder);
    let mine = validHeld().length;
    for (const lease of leases) {
      if (held.has(lease.name) || !lease.free || stopped) continue;
      // Another live process that wants it and holds fewer takes it (ties: whoever comes first).
      if (others.some((o) => o.wants.includes(lease.name) && o.held < mine)) continue;
      const sentAt = performance.now();
      const taken = await tryAcquireLease(c, { name: lease.name, holder, seconds });
      if (!taken) continue;
      held.set(lease.name, { lease: taken, validUntil: sentAt + validMs });
      mine++;
      logger.info(
        { lease: lease.name, epoch: taken.epoch.toString(), from: lease.holder, holder },
        "lease acquired: now leading",
      );
    }
    const poorer = (name: string) => others.find((o) => o.wants.includes(name) && o.held + 1 < mine);
    for (const h of validHeld()) {
      const to = poorer(h.lease.name);
      if (!to) continue;
      await handOver(h, c);
      logger.info({ lease: h.lease.name, holding: mine, to: to.id }, "lease handed over to balance the processes");
      break;
    }
  };

  const handOver = async (h: Held, c: pg.PoolClient): Promise<void> => {
    held.delete(h.lease.name);
    await releaseLease(c, h.lease);
  };

  const cycle = async (): Promise<void> => {
    try {
      const c = await session();
      if (performance.now() - lastRenewAt >= renewEveryMs) await renew(c);
      if (!stopped && !skipBalance) await balance(c);
      skipBalance = false;
    } catch (error) {
      // A lost connection is reconnected at the next poll (and its liveness lock taken again); any
      // other failure (a renewal's lock wait timing out) is retried as it is. Leases not renewed in
      // time stop counting as held (validHeld).
      if (isConnectionError(error)) broken = true;
      logger.warn({ holder, err: String(error) }, "lease keeper poll failed");
    }
  };

  const schedule = () => {
    if (stopped) return;
    const delay = pollMs * (0.75 + Math.random() * 0.5);
    timer = setTimeout(() => {
      running = cycle().finally(() => {
        running = undefined;
        schedule();
      });
    }, delay);
    timer.unref();
  };

  const start = (): Promise<void> => {
    if (!firstCycle) {
      firstCycle = running = cycle().finally(() => {
        running = undefined;
        schedule();
      });
    }
    return firstCycle;
  };

  const unwant = async (name: string): Promise<void> => {
    wanted.delete(name);
    const h = held.get(name);
    if (!h) return;
    held.delete(name);
    try {
      await releaseLease(client && !broken ? client : db, h.lease);
      logger.info({ lease: name, epoch: h.lease.epoch.toString() }, "lease released");
    } catch (error) {
      // Not released: it expires by itself within the bound.
      logger.warn({ lease: name, err: String(error) }, "could not release the lease");
    }
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
      await start();
      validHeld();
      return held.get(name)?.lease ?? null;
    },
    lost(lease) {
      const h = held.get(lease.name);
      if (h && h.lease.epoch === lease.epoch) held.delete(lease.name);
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      if (timer) clearTimeout(timer);
      await running;
      for (const name of [...held.keys()]) await unwant(name);
      wanted.clear();
      const c = client;
      if (c && !broken) {
        try {
          await c.query("DELETE FROM lease_holders WHERE id = $1", [holder]);
          await c.query("SELECT pg_advisory_unlock($1, hashtext($2))", [LIVENESS_LOCK_NAMESPACE, holder]);
          client = undefined;
          c.off("error", onError);
          c.release();
          return;
        } catch {
          // Closing the connection below ends the session and with it the lock.
        }
      }
      dropClient();
    },
  };
}
