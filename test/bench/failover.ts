import { type IndexerProcess, measureUntil, startIndexerCluster } from "../support/indexer-cluster.ts";
import { printTable } from "./measure.ts";

type Role = "indexer" | "all";
type Fault = "kill" | "hang";

/**
 * `pnpm bench failover [--rounds N] [--bound S] [--role indexer|all]`: real `payments serve`
 * processes on one PostgreSQL database (DATABASE_URL) and an anvil, `--role indexer` then `--role
 * all` (as `pnpm start` runs it) unless --role picks one. Each round kills (kill -9) or hangs
 * (SIGSTOP) the process leading BASE while a standby of the same role runs, and times how long
 * until another live process holds the chain's lease. Targets (issue 19): kill <= 1 s median; hang
 * <= bound + 1 s, for either role.
 */
export async function runFailoverBench(options: { rounds?: number; bound?: number; role?: Role } = {}): Promise<void> {
  if (!process.env.DATABASE_URL) {
    process.stderr.write(
      "bench failover needs a PostgreSQL server: set DATABASE_URL (the embedded database is single-host)\n",
    );
    return;
  }
  const rounds = options.rounds ?? 5;
  const bound = options.bound ?? 10;
  const roles: Role[] = options.role ? [options.role] : ["indexer", "all"];
  const rows = [];
  for (const role of roles) {
    const times = await measureRole(role, rounds, bound);
    rows.push(
      summary(role, "kill", "lease", times.kill, bound, 1_000),
      summary(role, "kill", "indexing", times["kill-indexing"], bound, 1_000),
      summary(role, "hang", "lease", times.hang, bound, (bound + 1) * 1_000),
      summary(role, "hang", "indexing", times["hang-indexing"], bound, (bound + 1) * 1_000),
    );
  }
  printTable(`Failover: takeover of BASE by a standby process (INDEXER_LEASE_SECONDS=${bound})`, rows);
}

/** Rounds of kill and hang of the leading process of `role`, each with a standby of that role beside it. */
async function measureRole(
  role: Role,
  rounds: number,
  bound: number,
): Promise<Record<Fault | `${Fault}-indexing`, number[]>> {
  const cluster = await startIndexerCluster({ chains: ["BASE"], leaseSeconds: bound });
  try {
    const leaderProcess = async (processes: IndexerProcess[]): Promise<IndexerProcess> => {
      let found: IndexerProcess | undefined;
      await measureUntil("a leader", 60_000, async () => {
        const pid = (await cluster.leader("BASE"))?.pid;
        found = processes.find((p) => p.pid === pid);
        return found !== undefined;
      });
      return found as IndexerProcess;
    };
    const live: IndexerProcess[] = [await cluster.spawn([], role)];
    const times: Record<Fault | `${Fault}-indexing`, number[]> = {
      kill: [],
      hang: [],
      "kill-indexing": [],
      "hang-indexing": [],
    };
    for (let round = 0; round < rounds * 2; round++) {
      const fault: Fault = round % 2 === 0 ? "kill" : "hang";
      // A standby beside the leader, then the fault on the leader.
      live.push(await cluster.spawn([], role));
      const leader = await leaderProcess(live);
      leader.child.kill(fault === "kill" ? "SIGKILL" : "SIGSTOP");
      const ms = await measureUntil("takeover", (bound + 10) * 1_000, async () => {
        const now = await cluster.leader("BASE");
        return now !== null && now.pid !== leader.pid;
      });
      times[fault].push(ms);
      const outputFrom = new Map(live.map((p) => [p.pid, p.output().length]));
      // Led is not indexing: the new leader's first write under its lease (every tick records the head).
      const indexingMs = await measureUntil("indexing again", (bound + 30) * 1_000, async () => {
        const { rows } = await cluster.db.query<{ resumed: boolean }>(
          `SELECT c.updated_at >= l.acquired_at AS resumed FROM chain_cursors c, leases l
            WHERE c.chain = 'BASE' AND l.name = 'indexer:BASE'`,
        );
        return rows[0]?.resumed === true;
      });
      times[`${fault}-indexing`].push(ms + indexingMs);
      process.stderr.write(
        `--role ${role} round ${round + 1}: ${fault} -> lease taken in ${ms.toFixed(0)} ms, indexing again ${(ms + indexingMs).toFixed(0)} ms\n`,
      );
      for (const p of live) {
        if (p === leader) continue;
        const said = p.output().slice(outputFrom.get(p.pid) ?? 0);
        for (const line of said.split("\n"))
          if (/"level":(40|50)/.test(line)) process.stderr.write(`  ${p.pid}: ${line}\n`);
      }
      if (fault === "hang") {
        leader.child.kill("SIGCONT");
        leader.child.kill("SIGKILL");
      }
      await leader.exited();
      live.splice(live.indexOf(leader), 1);
    }
    return times;
  } finally {
    await cluster.close();
  }
}

/** `until`: the standby holds the lease, or has written under it (indexing again). */
function summary(
  role: Role,
  fault: Fault,
  until: "lease" | "indexing",
  times: number[],
  bound: number,
  target: number,
) {
  const sorted = [...times].sort((x, y) => x - y);
  const median = sorted[Math.floor((sorted.length - 1) / 2)] ?? Number.NaN;
  return {
    role,
    fault,
    until,
    rounds: sorted.length,
    "median ms": Math.round(median),
    "max ms": Math.round(sorted.at(-1) ?? Number.NaN),
    "bound s": bound,
    "target ms": target,
  };
}
