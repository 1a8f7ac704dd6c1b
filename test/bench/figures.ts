import { readFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import type { BenchRow, BenchTable } from "./measure.ts";

/** One bench's part of a `pnpm bench all` file: its tables (baselines included) and the load around it. */
export interface BenchRecord {
  name: string;
  startedAt: string;
  seconds: number;
  /** os.loadavg() (1, 5, 15 minutes) before and after the bench: other jobs sharing the machine. */
  load: { before: number[]; after: number[] };
  tables: BenchTable[];
  error?: string;
}

export interface BenchFile {
  version: 1;
  startedAt: string;
  commit?: string;
  database: string;
  machine: { cpus: number; node: string };
  benches: BenchRecord[];
}

export function newBenchFile(commit: string | undefined): BenchFile {
  return {
    version: 1,
    startedAt: new Date().toISOString(),
    ...(commit ? { commit } : {}),
    database: process.env.DATABASE_URL ? "PostgreSQL server" : "embedded PGlite",
    machine: { cpus: cpus().length, node: process.version },
    benches: [],
  };
}

const round2 = (values: number[]) => values.map((v) => Math.round(v * 100) / 100);

/** Runs one bench, collecting the tables it prints (`take`) and the machine's load around it. */
export async function recordBench(
  name: string,
  run: () => Promise<void>,
  take: () => BenchTable[],
): Promise<BenchRecord> {
  const startedAt = new Date().toISOString();
  const before = round2(loadavg());
  const started = performance.now();
  let error: string | undefined;
  try {
    await run();
  } catch (caught) {
    error = caught instanceof Error ? caught.message : String(caught);
    process.stderr.write(`bench ${name} failed: ${error}\n`);
  }
  return {
    name,
    startedAt,
    seconds: Math.round((performance.now() - started) / 100) / 10,
    load: { before, after: round2(loadavg()) },
    tables: take(),
    ...(error === undefined ? {} : { error }),
  };
}

/** A cell's number: numbers as they are, strings by their leading figure ("1,472", "325 ms", "0.66x"). */
export function figureOf(value: string | number): number | undefined {
  if (typeof value === "number") return Number.isFinite(value) ? value : undefined;
  const match = /^\s*(-?[\d,]*\.?\d+)/.exec(value);
  if (!match?.[1]) return undefined;
  const parsed = Number(match[1].replaceAll(",", ""));
  return Number.isFinite(parsed) ? parsed : undefined;
}

/**
 * Every numeric cell of a file, keyed `bench | table | row | column`. A row is named by its first
 * text cell that is not a figure (its `path`, `step`, `measure`...), else by its position.
 */
export function flattenFigures(file: BenchFile): Map<string, number> {
  const figures = new Map<string, number>();
  for (const bench of file.benches) {
    for (const table of bench.tables) {
      table.rows.forEach((row, index) => {
        const label = rowLabel(row, index);
        for (const [column, value] of Object.entries(row)) {
          if (column === label.column) continue;
          const figure = figureOf(value);
          if (figure !== undefined) figures.set(`${bench.name} | ${table.title} | ${label.text} | ${column}`, figure);
        }
      });
    }
  }
  return figures;
}

function rowLabel(row: BenchRow, index: number): { column?: string; text: string } {
  for (const [column, value] of Object.entries(row)) {
    if (typeof value === "string" && figureOf(value) === undefined) return { column, text: value };
  }
  return { text: `row ${index + 1}` };
}

export function readBenchFile(path: string): BenchFile {
  const parsed = JSON.parse(readFileSync(path, "utf8")) as BenchFile;
  if (parsed.version !== 1 || !Array.isArray(parsed.benches)) throw new Error(`${path} is not a pnpm bench all file`);
  return parsed;
}

export interface FigureComparison {
  figure: string;
  a?: number;
  b?: number;
  /** b / a, when both are there and a is not 0. */
  ratio?: number;
}

/** Figures of both files side by side, in A's order and then those only B has. */
export function compareFigures(a: BenchFile, b: BenchFile): FigureComparison[] {
  const fa = flattenFigures(a);
  const fb = flattenFigures(b);
  const keys = [...fa.keys(), ...[...fb.keys()].filter((k) => !fa.has(k))];
  return keys.map((figure) => {
    const x = fa.get(figure);
    const y = fb.get(figure);
    return {
      figure,
      ...(x === undefined ? {} : { a: x }),
      ...(y === undefined ? {} : { b: y }),
      ...(x !== undefined && y !== undefined && x !== 0 ? { ratio: y / x } : {}),
    };
  });
}

/** The comparison as text: the load of each bench in both runs, then one line per figure. */
export function formatComparison(a: BenchFile, b: BenchFile): string {
  const lines: string[] = [
    `A: ${a.startedAt} ${a.commit ?? ""} (${a.database}, ${a.machine.cpus} CPUs)`,
    `B: ${b.startedAt} ${b.commit ?? ""} (${b.database}, ${b.machine.cpus} CPUs)`,
    "",
    "load average (1 min) before/after each bench, A | B:",
  ];
  for (const bench of a.benches) {
    const other = b.benches.find((x) => x.name === bench.name);
    const load = (r: BenchRecord | undefined) =>
      r ? `${r.load.before[0]}/${r.load.after[0]}${r.error ? " (failed)" : ""}` : "-";
    lines.push(`  ${bench.name}: ${load(bench)} | ${load(other)}`);
  }
  lines.push("", "B / A  figure (A -> B)");
  for (const row of compareFigures(a, b)) {
    const ratio = row.ratio === undefined ? "    -" : `${row.ratio.toFixed(2)}x`;
    lines.push(`${ratio.padStart(6)}  ${row.figure} (${row.a ?? "-"} -> ${row.b ?? "-"})`);
  }
  return `${lines.join("\n")}\n`;
}
