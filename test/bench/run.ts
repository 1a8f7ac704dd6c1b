/**
 * `pnpm bench <name> [options]`: prints figures, never asserts. Names: api (`--alloc-profile F`: sampled allocations), wallets, indexer
 * (`--chain BASE|SOLANA|BITCOIN|TRON`, default BASE), failover (`--rounds N --bound S [--role indexer|all]`, both roles by default, PostgreSQL only),
 * webhooks, webhooks-cpu (`--deliveries N`, default 20,000: CPU per delivery of a drain beside raw POSTs), sends (EVM, `--sends N`, default 1,000), bitcoin-sends (`--sends N`, default 200),
 * sweeps (EVM, `--addresses N`, default 1,000), transfers (`--seconds S` of quotes, `--rounds N` of
 * whole bank USD -> USDC stories, default 5), dashboard (`--deposits N`, default 100,000), checkout
 * (`--rounds N` of paid requests, default 3), cli (`--rounds N` of each command, default 5),
 * liquidation (`--deposits N --addresses M`, default 1,000 to 100; `--drain-concurrency 1`: one drain at a time, as before).
 * `all` (the default) runs every one in sequence and writes their tables, with the machine's load
 * around each, to one JSON file (`--out F`, default `.tmp/bench/<time>.json`);
 * `compare A.json B.json` prints each figure of B beside A's with the ratio B / A.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { formatComparison, newBenchFile, readBenchFile, recordBench } from "./figures.ts";
import { takeTables } from "./measure.ts";

const [name = "all", ...rest] = process.argv.slice(2);
const flag = (key: string) => {
  const i = rest.indexOf(`--${key}`);
  return i >= 0 ? rest[i + 1] : undefined;
};
/** The numeric flags among `keys` that were given, as a bench's options: `--drain-concurrency 1` is `{ drainConcurrency: 1 }`. */
const numbers = (...keys: string[]): Record<string, number> =>
  Object.fromEntries(
    keys.flatMap((key) => {
      const value = flag(key);
      return value === undefined ? [] : [[key.replace(/-(\w)/g, (_, c: string) => c.toUpperCase()), Number(value)]];
    }),
  );

const benches: Record<string, () => Promise<void>> = {
  api: async () =>
    (await import("./api.ts")).runApiBench({
      ...numbers("seconds"),
      ...(flag("alloc-profile") ? { allocProfile: flag("alloc-profile") as string } : {}),
    }),
  indexer: async () =>
    (await import("./indexer.ts")).runIndexerBench({
      ...(flag("chain") ? { chain: flag("chain") as string } : {}),
      ...numbers("blocks", "watched", "transfers"),
      ...(flag("cpu-prof") ? { cpuProf: flag("cpu-prof") as string } : {}),
    }),
  credit: async () =>
    (await import("../../packages/indexer/bench/credit.ts")).runCreditBench({
      ...numbers("deposits", "rounds"),
      ...(flag("compare") ? { compare: flag("compare") as "0320" | "0330" | "0370" } : {}),
    }),
  wallets: async () => (await import("./wallets.ts")).runWalletsBench(numbers("seconds")),
  failover: async () =>
    (await import("./failover.ts")).runFailoverBench({
      ...numbers("rounds", "bound"),
      ...(flag("role") ? { role: flag("role") as "indexer" | "all" } : {}),
    }),
  webhooks: async () => (await import("./webhooks.ts")).runWebhooksBench(numbers("seconds")),
  "webhooks-cpu": async () => {
    await (await import("./webhooks-cpu.ts")).runWebhooksCpuBench(numbers("deliveries"));
  },
  transfers: async () => (await import("./transfers.ts")).runTransfersBench(numbers("seconds", "rounds")),
  cli: async () => (await import("./cli.ts")).runCliBench(numbers("rounds")),
  liquidation: async () =>
    (await import("./liquidation.ts")).runLiquidationBench(numbers("deposits", "addresses", "drain-concurrency")),
  checkout: async () => (await import("./checkout.ts")).runCheckoutBench(numbers("rounds")),
  dashboard: async () => (await import("./dashboard.ts")).runDashboardBench(numbers("deposits")),
  // The three treasury figures: EVM sends/s, Bitcoin batching, EVM sweeps. Each also runs alone.
  sends: async () => {
    await benches["evm-sends"]?.();
    await benches["bitcoin-sends"]?.();
    await benches.sweeps?.();
  },
  "evm-sends": async () => {
    await (await import("../../packages/treasury/bench/sends.ts")).runSendsBench(numbers("sends"));
  },
  "bitcoin-sends": async () =>
    (await import("../../packages/treasury/bench/bitcoin-sends.ts")).runBitcoinSendsBench(numbers("sends")),
  sweeps: async () =>
    (await import("../../packages/treasury/bench/evm-sweeps.ts")).runEvmSweepsBench(numbers("addresses")),
};

if (name === "compare") {
  const [a, b] = rest;
  if (!a || !b) {
    process.stderr.write("usage: pnpm bench compare A.json B.json\n");
    process.exit(2);
  }
  process.stdout.write(formatComparison(readBenchFile(a), readBenchFile(b)));
  process.exit(0);
}

if (name !== "all") {
  const run = benches[name];
  if (!run) {
    process.stderr.write(`unknown benchmark ${name}; known: all, compare, ${Object.keys(benches).join(", ")}\n`);
    process.exit(2);
  }
  await run();
  process.exit(0);
}

// `all`: every bench in sequence (the `sends` alias's three parts on their own names), one file.
const file = newBenchFile(gitCommit());
const out = flag("out") ?? `.tmp/bench/${file.startedAt.replaceAll(":", "-")}.json`;
const only = flag("only")?.split(",");
for (const bench of Object.keys(benches).filter((b) => b !== "sends" && (!only || only.includes(b)))) {
  const run = benches[bench] as () => Promise<void>;
  file.benches.push(await recordBench(bench, run, takeTables));
  // Written after each bench: a run cut short still leaves the figures measured so far.
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, `${JSON.stringify(file, null, 2)}\n`);
}
process.stdout.write(`\nfigures of ${file.benches.length} benches written to ${out}\n`);
process.exit(file.benches.some((b) => b.error) ? 1 : 0);

function gitCommit(): string | undefined {
  try {
    return execFileSync("git", ["rev-parse", "--short", "HEAD"], { encoding: "utf8" }).trim();
  } catch {
    return undefined;
  }
}
