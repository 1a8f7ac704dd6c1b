import { AppError } from "@mp/core";
import type { Queryable } from "./database-contract.ts";

/**
 * Leadership of a named resource (migrations/0080): the fencing token a holder carries. Every write
 * made under it runs assertLeader(tx, lease) first, in the same transaction.
 */
export interface Lease {
  readonly name: string;
  /** lease_holders.id of the holding process: host:pid:random. */
  readonly holder: string;
  /** Bumped at every change of holder: a write carrying an older epoch is refused. */
  readonly epoch: bigint;
  /** Since when (database time) this holder holds it. */
  readonly acquiredAt: Date;
}

/** A write under a lease that is no longer this holder's (taken over, or expired): nothing was written. */
export class LeadershipLostError extends AppError {
  readonly lease: string;
  constructor(lease: Lease) {
    super("leadership_lost", `lost the lease ${lease.name} (epoch ${lease.epoch}): another process leads it now`, {
      retryable: false,
      details: { lease: lease.name, epoch: lease.epoch.toString() },
    });
    this.lease = lease.name;
  }
}

/** Advisory lock space of the holders' liveness locks (migrations/0082 names the same constant). */
export const LIVENESS_LOCK_NAMESPACE = 7_245_022;

/**
 * The fencing guard: proves, inside the caller's transaction, that `lease` still leads (same holder
 * and epoch, not expired by the database's clock), else throws LeadershipLostError so the
 * transaction rolls back. Call it first in every write transaction made under a lease.
 *
 * FOR SHARE, held until the transaction ends, is what makes the check last until COMMIT: a takeover
 * or a renewal updates the row, so neither can commit in between (a renewal waits for the writer; a
 * takeover skips a locked row, see tryAcquireLease). FOR KEY SHARE would not do: an UPDATE that
 * leaves the key alone (a takeover changes holder and epoch only) does not conflict with it.
 *
 * A holder that hangs inside such a transaction would keep that share lock, and with it every
 * standby out, for as long as its session lives: the guard sets the transaction's
 * idle_in_transaction_session_timeout so the server ends the session of a writer that stops
 * answering mid-transaction (and its locks with it) after `idleTimeoutMs`.
 */
export async function assertLeader(
  q: Queryable,
  lease: Lease,
  options: { idleTimeoutMs?: number } = {},
): Promise<void> {
  const { rows } = await q.query<{ held: boolean }>(
    `SELECT set_config('idle_in_transaction_session_timeout', $4, true) IS NOT NULL AS held FROM leases
      WHERE name = $1 AND holder = $2 AND epoch = $3 AND expires_at > clock_timestamp() FOR SHARE`,
    [lease.name, lease.holder, lease.epoch.toString(), String(options.idleTimeoutMs ?? 0)],
  );
  if (rows.length !== 1) throw new LeadershipLostError(lease);
}

interface LeaseRow {
  epoch: string;
  acquired_at: Date;
}

const toLease = (name: string, holder: string, row: LeaseRow): Lease => ({
  name,
  holder,
  epoch: BigInt(row.epoch),
  acquiredAt: row.acquired_at,
});

/**
 * Takes `name` for `holder` when it is free: no row yet, expired by the database's clock, or its
 * holder's session is gone (lease_holder_alive). Taking it starts a new epoch, even when the same
 * holder comes back to a lease it let expire: work begun under the old epoch must not pass the
 * guard. Never waits: a row another transaction has locked (its holder writing right now) is
 * skipped and tried at the next poll. Returns null when the lease is not free.
 */
export async function tryAcquireLease(
  q: Queryable,
  options: { name: string; holder: string; seconds: number },
): Promise<Lease | null> {
  const { name, holder, seconds } = options;
  const inserted = await q.query<LeaseRow>(
    `INSERT INTO leases (name, holder, epoch, acquired_at, renewed_at, expires_at)
     VALUES ($1, $2, 1, clock_timestamp(), clock_timestamp(), clock_timestamp() + make_interval(secs => $3))
     ON CONFLICT (name) DO NOTHING
     RETURNING epoch::text, acquired_at`,
    [name, holder, seconds],
  );
  if (inserted.rows[0]) return toLease(name, holder, inserted.rows[0]);
  const taken = await q.query<LeaseRow>(
    `UPDATE leases SET holder = $2, epoch = epoch + 1, acquired_at = clock_timestamp(), renewed_at = clock_timestamp(),
            expires_at = clock_timestamp() + make_interval(secs => $3)
      WHERE name = (SELECT name FROM leases WHERE name = $1
                       AND (expires_at <= clock_timestamp() OR NOT lease_holder_alive(holder))
                       FOR UPDATE SKIP LOCKED)
      RETURNING epoch::text, acquired_at`,
    [name, holder, seconds],
  );
  return taken.rows[0] ? toLease(name, holder, taken.rows[0]) : null;
}

/**
 * Extends the holder's unexpired leases among `leases` by `seconds` from now (database time).
 * Returns the names renewed: a lease missing from the answer was lost (expired, or taken over).
 */
export async function renewLeases(q: Queryable, leases: readonly Lease[], seconds: number): Promise<Set<string>> {
  if (leases.length === 0) return new Set();
  const { rows } = await q.query<{ name: string }>(
    `UPDATE leases l SET expires_at = clock_timestamp() + make_interval(secs => $4), renewed_at = clock_timestamp()
       FROM unnest($1::text[], $2::text[], $3::bigint[]) AS h(name, holder, epoch)
      WHERE l.name = h.name AND l.holder = h.holder AND l.epoch = h.epoch AND l.expires_at > clock_timestamp()
      RETURNING l.name`,
    [leases.map((l) => l.name), leases.map((l) => l.holder), leases.map((l) => l.epoch.toString()), seconds],
  );
  return new Set(rows.map((r) => r.name));
}

/**
 * Gives the lease up (expires it now) so a standby takes it at its next poll. Waits for the holder's
 * own guarded transactions on it to end first (they hold the row FOR SHARE). Idempotent.
 */
export async function releaseLease(q: Queryable, lease: Lease): Promise<void> {
  await q.query(
    `UPDATE leases SET expires_at = clock_timestamp()
      WHERE name = $1 AND holder = $2 AND epoch = $3 AND expires_at > clock_timestamp()`,
    [lease.name, lease.holder, lease.epoch.toString()],
  );
}
