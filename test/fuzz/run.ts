import { spawnSync } from "node:child_process";
import { Command, InvalidArgumentError } from "commander";

/**
 * `pnpm fuzz money [--cases N] [--seed S] [--path P] [--family F]`: the money fuzz (issue 27) with
 * more cases than CI runs, or one failing case replayed. Each family's file runs in vitest (its
 * test database, nodes and harness), one after the other; the seed and the tally are printed.
 */
const FAMILIES: Record<string, string> = {
  bitcoin: "test/fuzz/bitcoin-money-fuzz.test.ts",
  "bitcoin-sweeps": "test/fuzz/bitcoin-sweeps-money-fuzz.test.ts",
  tron: "test/fuzz/tron-money-fuzz.test.ts",
  "tron-sweeps": "test/fuzz/tron-sweeps-money-fuzz.test.ts",
  solana: "test/fuzz/solana-money-fuzz.test.ts",
  "solana-sweeps": "test/fuzz/solana-sweeps-money-fuzz.test.ts",
  evm: "test/fuzz/evm-money-fuzz.test.ts",
  "evm-sweeps": "test/fuzz/evm-sweeps-money-fuzz.test.ts",
  transfers: "test/fuzz/transfers-money-fuzz.test.ts",
  liquidation: "test/fuzz/liquidation-drains-money-fuzz.test.ts",
  "evm-returns": "test/fuzz/evm-returns-money-fuzz.test.ts",
  "bank-returns": "test/fuzz/bank-returns-money-fuzz.test.ts",
};

const positive = (value: string): number => {
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n < 1) throw new InvalidArgumentError("a positive integer");
  return n;
};

const program = new Command("fuzz")
  .argument("<target>", "what to fuzz: money")
  .option("--cases <n>", "cases per family", positive, 20)
  .option("--seed <s>", "fast-check seed to replay (printed by every run)", (v) => String(Math.trunc(Number(v))))
  .option("--path <p>", "fast-check path of the failing case (printed with it)")
  .option("--family <f>", `one family (or the transfer executor): ${Object.keys(FAMILIES).join(", ")}`)
  .action((target: string, options: { cases: number; seed?: string; path?: string; family?: string }) => {
    if (target !== "money") throw new InvalidArgumentError(`unknown fuzz target ${target} (money)`);
    const families = options.family ? [options.family] : Object.keys(FAMILIES);
    let failed = false;
    for (const family of families) {
      const file = FAMILIES[family];
      if (!file) throw new InvalidArgumentError(`unknown family ${family} (${Object.keys(FAMILIES).join(", ")})`);
      const env = {
        ...process.env,
        FUZZ_CASES: String(options.cases),
        ...(options.seed ? { FUZZ_SEED: options.seed } : {}),
        ...(options.path ? { FUZZ_PATH: options.path } : {}),
      };
      const run = spawnSync("pnpm", ["vitest", "run", file], { stdio: "inherit", env });
      if (run.status !== 0) failed = true;
    }
    process.exitCode = failed ? 1 : 0;
  });

program.parse();
