import { type IndexerProcess, measureUntil, startIndexerCluster } from "../support/indexer-cluster.ts";
import { printTable } from "./measure.ts";

/**
 * `pnpm bench failover [--rounds N] [--bound S]`: real `payments serve --role indexer` processes on
 * one PostgreSQL database (DATABASE_URL) and an anvil. Each round kills (kill -9) or hangs
 * (SIGSTOP) the process leading BASE while a standby runs, and times how long until another live
 * process holds the chain's lease. Targets (issue 19): kill <= 1 s median; hang <= bound + 1 s.
 */
export async function runFailoverBench(options: { rounds?: number; bound?: number } = {}): Promise<void> {
  if (!process.env.DATABASE_URL) {
    process.stderr.write(
      "bench failover needs a PostgreSQL server: set DATABASE_URL (the embedded database is single-host)\n",
    );
    return;
  }
  const rounds = options.rounds ?? 5;
  const bound = options.bound ?? 10;
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
    const live: IndexerProcess[] = [await cluster.spawn()];
    const times: Record<"kill" | "hang", number[]> = { kill: [], hang: [] };
    for (let round = 0; round < rounds * 2; round++) {
      const fault = round % 2 === 0 ? "kill" : "hang";
      // A standby beside the leader, then the fault on the leader.
      live.push(await cluster.spawn());
      const leader = await leaderProcess(live);
      leader.child.kill(fault === "kill" ? "SIGKILL" : "SIGSTOP");
      const ms = await measureUntil("takeover", (bound + 10) * 1_000, async () => {
        const now = await cluster.leader("BASE");
        return now !== null && now.pid !== leader.pid;
      });
      times[fault].push(ms);
      process.stderr.write(`round ${round + 1}: ${fault} -> takeover in ${ms.toFixed(0)} ms\n`);
      if (fault === "hang") {
        leader.child.kill("SIGCONT");
        leader.child.kill("SIGKILL");
      }
      await leader.exited();
      live.splice(live.indexOf(leader), 1);
    }
    const row = (fault: "kill" | "hang", target: number) => {
      const sorted = [...times[fault]].sort((x, y) => x - y);
      const median = sorted[Math.floor((sorted.length - 1) / 2)] ?? Number.NaN;
      return {
        fault,
        rounds: sorted.length,
        "median ms": Math.round(median),
        "max ms": Math.round(sorted.at(-1) ?? Number.NaN),
        "bound s": bound,
        "target ms": target,
      };
    };
    printTable(`Indexer failover: takeover of BASE by a standby process (INDEXER_LEASE_SECONDS=${bound})`, [
      row("kill", 1_000),
      row("hang", (bound + 1) * 1_000),
    ]);
  } finally {
    await cluster.close();
  }
}
