import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createTestDatabase } from "@mp/db/testing";
import { PAYMENTS_BIN, startService } from "../cli/run-cli.ts";
import { stopProcessGroup } from "../e2e/several-processes.ts";
import { eventually } from "../support/api-harness.ts";
import { printTable } from "./measure.ts";

export interface CliBenchOptions {
  /** Runs of each command; the median is printed. */
  rounds?: number;
}

interface Timing {
  cpuSeconds: number;
  wallSeconds: number;
}

const ROOT = new URL("../../", import.meta.url).pathname;

/**
 * CPU (user + system, children included) and wall time of one command, as bash's `time` reports
 * them: Node cannot read a child's rusage, and the shell's own cost is in both the command and the
 * `node -e 0` baseline.
 */
function timeCommand(command: string, env: Record<string, string | undefined>): Timing {
  const result = spawnSync("bash", ["-c", `TIMEFORMAT='%U %S %R'; time (${command} > /dev/null 2>&1)`], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    encoding: "utf8",
  });
  const last = result.stderr.trim().split("\n").at(-1) ?? "";
  const [user, sys, real] = last.split(" ").map(Number);
  if (user === undefined || sys === undefined || real === undefined || Number.isNaN(real)) {
    throw new Error(`could not time ${command}: ${result.stderr}`);
  }
  return { cpuSeconds: user + sys, wallSeconds: real };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

function measure(command: string, rounds: number, env: Record<string, string | undefined> = {}): Timing {
  const runs = Array.from({ length: rounds }, () => timeCommand(command, env));
  return { cpuSeconds: median(runs.map((r) => r.cpuSeconds)), wallSeconds: median(runs.map((r) => r.wallSeconds)) };
}

/**
 * Seconds from spawning `payments serve --role all` (run-cli.ts's startService: own process group,
 * bounded start) until /ready answers 200; then stopped like the e2e tests stop a service.
 */
async function readySeconds(dataDir: string, port: number): Promise<number> {
  const started = performance.now();
  const service = await startService(["--role", "all"], {
    DATABASE_URL: undefined,
    DATA_DIR: dataDir,
    PORT: String(port),
  });
  try {
    await eventually(
      () =>
        fetch(`${service.url}/ready`).then(
          (response) => response.status === 200 || undefined,
          () => undefined,
        ),
      300_000,
      50,
    );
    return (performance.now() - started) / 1000;
  } finally {
    await stopProcessGroup(service.child);
  }
}

/**
 * `pnpm bench cli`: the payments command's start-up cost beside Node's own (issue 26's targets:
 * `--help` CPU at most 2x `pnpm exec node -e 0`, a read-only command within 1.5 s on a quiet machine,
 * `pnpm start` ready within 10 s).
 */
export async function runCliBench(options: CliBenchOptions = {}): Promise<void> {
  const rounds = options.rounds ?? 5;
  const bin = `node ${PAYMENTS_BIN}`;
  const baseline = measure("pnpm exec node -e 0", rounds);
  const rows: Array<{ command: string; timing: Timing }> = [
    { command: "node -e 0", timing: measure("node -e 0", rounds) },
    { command: "pnpm exec node -e 0 (baseline)", timing: baseline },
    { command: "payments --help", timing: measure(`${bin} --help`, rounds) },
    { command: "pnpm -s payments --help", timing: measure("pnpm -s payments --help", rounds) },
  ];

  const embeddedDir = mkdtempSync(join(tmpdir(), "mpbench-cli-"));
  const embedded = { DATABASE_URL: undefined, DATA_DIR: embeddedDir };
  timeCommand(`${bin} ledger check`, embedded); // the first run creates and migrates the data directory
  rows.push({
    command: "payments ledger check (embedded PGlite)",
    timing: measure(`${bin} ledger check`, rounds, embedded),
  });
  if (process.env.DATABASE_URL) {
    const database = await createTestDatabase();
    try {
      const server = { DATABASE_URL: database.connectionString };
      rows.push({
        command: "payments ledger check (PostgreSQL)",
        timing: measure(`${bin} ledger check`, rounds, server),
      });
    } finally {
      await database.drop();
    }
  }
  printTable(
    `payments command start-up, median of ${rounds} runs (targets: --help CPU <= 2x baseline; read-only command <= 1.5 s)`,
    rows.map(({ command, timing }) => ({
      command,
      "CPU s": Number(timing.cpuSeconds.toFixed(2)),
      "wall s": Number(timing.wallSeconds.toFixed(2)),
      "CPU / baseline": Number((timing.cpuSeconds / baseline.cpuSeconds).toFixed(2)),
    })),
  );

  const serveDir = mkdtempSync(join(tmpdir(), "mpbench-serve-"));
  try {
    const first = await readySeconds(serveDir, 39_611);
    const again = await readySeconds(serveDir, 39_612);
    printTable("pnpm start (serve --role all, embedded database, sandbox chains) until /ready (target < 10 s)", [
      { start: "fresh data directory (migrations, new keys)", "ready s": Number(first.toFixed(1)) },
      { start: "same data directory again", "ready s": Number(again.toFixed(1)) },
    ]);
  } finally {
    rmSync(serveDir, { recursive: true, force: true });
    rmSync(embeddedDir, { recursive: true, force: true });
  }
}
