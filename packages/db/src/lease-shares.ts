import type pg from "pg";

/** A wanted resource's lease as the database sees it. */
export interface ObservedLease {
  name: string;
  holder: string | null;
  /** No row, expired, or its holder's session is gone: anyone may take it. */
  free: boolean;
}

/** A live keeper of the role: what it wants and how many leases it holds. */
export interface LiveHolder {
  id: string;
  wants: string[];
  held: number;
}

/** Announces this keeper (what it wants) until `seconds` from now, and forgets keepers gone for an hour. */
export async function heartbeat(
  c: pg.PoolClient,
  holder: { id: string; role: string; host: string; wants: string[]; seconds: number },
): Promise<void> {
  await c.query(
    `INSERT INTO lease_holders (id, role, host, pid, wants, started_at, expires_at)
     VALUES ($1, $2, $3, $4, $5, clock_timestamp(), clock_timestamp() + make_interval(secs => $6))
     ON CONFLICT (id) DO UPDATE SET wants = EXCLUDED.wants, expires_at = EXCLUDED.expires_at`,
    [holder.id, holder.role, holder.host, process.pid, holder.wants, holder.seconds],
  );
  // Rows of processes gone for an hour: nobody shows or counts them any more.
  await c.query("DELETE FROM lease_holders WHERE expires_at < clock_timestamp() - interval '1 hour'");
}

/** The wanted resources' leases and the role's live keepers with their shares. */
export async function observeShares(
  c: pg.PoolClient,
  wanted: readonly string[],
  role: string,
): Promise<{ leases: ObservedLease[]; live: LiveHolder[] }> {
  const leases = await c.query<ObservedLease>(
    `SELECT w.name, l.holder,
            (l.name IS NULL OR l.expires_at <= clock_timestamp() OR NOT lease_holder_alive(l.holder)) AS free
       FROM unnest($1::text[]) AS w(name) LEFT JOIN leases l ON l.name = w.name`,
    [wanted],
  );
  const live = await c.query<{ id: string; wants: string[]; held: string }>(
    `SELECT h.id, h.wants,
            (SELECT count(*) FROM leases l WHERE l.holder = h.id AND l.expires_at > clock_timestamp()) AS held
       FROM lease_holders h
      WHERE h.role = $1 AND h.expires_at > clock_timestamp() AND lease_holder_alive(h.id)`,
    [role],
  );
  return { leases: leases.rows, live: live.rows.map((r) => ({ id: r.id, wants: r.wants, held: Number(r.held) })) };
}
