import { readdirSync, readFileSync } from "node:fs";

/** CPU time in clock ticks (1/100 s on Linux) by thread id of this process, or by pid of `comm` processes. */
type Ticks = Map<string, number>;

/** utime + stime of one /proc stat line (fields 14 and 15; the name in parentheses may hold spaces). */
function ticksOf(stat: string): number {
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return Number(fields[11]) + Number(fields[12]);
}

function readTicks(dir: string, keep: (stat: string) => boolean): Ticks {
  const ticks: Ticks = new Map();
  let entries: string[];
  try {
    entries = readdirSync(dir);
  } catch {
    return ticks; // no /proc: not Linux
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`${dir}/${entry}/stat`, "utf8");
      if (keep(stat)) ticks.set(entry, ticksOf(stat));
    } catch {
      // The thread or process ended between the listing and the read.
    }
  }
  return ticks;
}

/** Where a load's CPU went, in microseconds per request. */
export interface CpuSplit {
  /** The event loop's thread: the server under measure. */
  mainThread: number;
  /** Threads older than the load besides the main one: V8's collector and compiler, libuv's pool. */
  helperThreads: number;
  /** The rest of the process's CPU: the load generator's worker, started and ended with the load. */
  loadGenerator: number;
  /** Every process named postgres on this machine: the database server, when it runs here. */
  postgres: number;
}

/**
 * Snapshots of this process's threads and of the machine's postgres processes, to split a load's CPU
 * (Linux /proc; zeros elsewhere). Why: the authenticated read's throughput against bare Express
 * follows the CPU of the whole machine per request (2 cores, saturated), and the server's own
 * thread was a minor part of the difference (V8's parallel collector threads and PostgreSQL were
 * most of it): process CPU alone hid that.
 */
export function cpuSnapshot(): { split(requests: number, processMicros: number): CpuSplit } {
  const threads = readTicks("/proc/self/task", () => true);
  const postgres = readTicks("/proc", (stat) => stat.includes("(postgres)"));
  return {
    split(requests, processMicros) {
      const perRequest = (ticks: number) => Math.round((ticks * 10_000) / Math.max(1, requests));
      const split: CpuSplit = { mainThread: 0, helperThreads: 0, loadGenerator: 0, postgres: 0 };
      for (const [tid, now] of readTicks("/proc/self/task", () => true)) {
        const before = threads.get(tid);
        // A thread started during the load is the load generator's; it may have exited already, so
        // its share is what the process used beyond the threads seen before.
        if (before === undefined) continue;
        if (tid === String(process.pid)) split.mainThread += perRequest(now - before);
        else split.helperThreads += perRequest(now - before);
      }
      split.loadGenerator = Math.max(
        0,
        Math.round(processMicros / Math.max(1, requests)) - split.mainThread - split.helperThreads,
      );
      for (const [pid, now] of readTicks("/proc", (stat) => stat.includes("(postgres)"))) {
        split.postgres += perRequest(now - (postgres.get(pid) ?? 0));
      }
      return split;
    },
  };
}
