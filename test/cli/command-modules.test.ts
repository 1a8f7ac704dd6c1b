import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { writeChainsConfig } from "../support/chains-config-file.ts";
import { useTempDir, useTestDatabase } from "../support/test-database.ts";
import { runCli } from "./run-cli.ts";

const RECORDER = new URL("../support/record-loaded-modules.mjs", import.meta.url).href;

/** Several `payments` processes, one after another: seconds each on a loaded 2-core machine. */
const TEST_TIMEOUT_MS = 180_000;

/** The npm package a file belongs to (its innermost node_modules folder), or undefined. */
function npmPackage(path: string): string | undefined {
  return /.*node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(path)?.[1];
}

/**
 * What `payments <args>` loaded: the npm packages and our source files, read from the build's
 * chunks it imported (each chunk's source map names its sources) and the files it imported
 * directly (the packages kept outside the bundle).
 */
function loaded(list: string): { packages: Set<string>; sources: Set<string> } {
  const packages = new Set<string>();
  const sources = new Set<string>();
  const note = (path: string) => {
    const pkg = npmPackage(path);
    if (pkg) packages.add(pkg);
    else sources.add(path.replace(/^(\.\.\/)+/, ""));
  };
  for (const url of readFileSync(list, "utf8").split("\n")) {
    if (!url.startsWith("file:")) continue;
    const path = fileURLToPath(url);
    if (!path.includes("/services/payments/dist/")) {
      note(path);
      continue;
    }
    const map = `${path}.map`;
    if (!existsSync(map)) continue;
    for (const source of (JSON.parse(readFileSync(map, "utf8")) as { sources: string[] }).sources) note(source);
  }
  return { packages, sources };
}

/**
 * Each command loads the modules it runs, not whole package indexes: `--help` nothing but commander,
 * a database command no HTTP app and no chain client it does not use.
 */
describe("payments commands load only what they run", () => {
  const database = useTestDatabase();
  const dir = useTempDir("mpmodules-");
  let env: Record<string, string>;
  let runs = 0;

  /** Runs `payments <args>` (exit 0 expected) with the recorder; what it loaded. */
  async function loadedBy(args: string[]) {
    const list = join(dir, `loaded-${runs++}.txt`);
    const result = await runCli(args, { ...env, NODE_OPTIONS: `--import=${RECORDER}`, MP_LOADED_MODULES: list });
    expect(result.code, result.stdout + result.stderr).toBe(0);
    return loaded(list);
  }

  beforeAll(() => {
    const chainsFile = writeChainsConfig(dir, { BASE: { rpcUrl: "http://127.0.0.1:9" } });
    env = { DATABASE_URL: database.connectionString, DATA_DIR: join(dir, "data"), CHAINS_CONFIG: chainsFile };
  });

  it(
    "--help: commander only (no configuration schemas, logger or database driver)",
    async () => {
      const { packages } = await loadedBy(["--help"]);
      expect([...packages]).toEqual(["commander"]);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    "merchants create, ledger check and a treasury send on BASE: no HTTP app, no other family's chain client",
    async () => {
      const otherFamilies = ["tronweb", "@solana/web3.js", "bitcoinjs-lib"];
      // The first merchant fills the custody pools (every family's keys); the next ones need none.
      await loadedBy(["merchants", "create", "--name", "first"]);
      const merchant = await loadedBy(["merchants", "create", "--name", "second"]);
      expect(merchant.packages).toContain("pg");
      for (const pkg of ["express", "viem", ...otherFamilies]) expect(merchant.packages).not.toContain(pkg);
      expect(merchant.sources).not.toContain("packages/api/src/index.ts");

      const ledger = await loadedBy(["ledger", "check"]);
      expect(ledger.sources).toContain("packages/ledger/src/check-ledger.ts");
      for (const pkg of ["express", "viem", ...otherFamilies]) expect(ledger.packages).not.toContain(pkg);

      const send = await loadedBy([
        "treasury",
        "send",
        "--chain",
        "BASE",
        "--asset",
        "ETH",
        "--to",
        "0x1111111111111111111111111111111111111111",
        "--amount",
        "0.01",
        "--key",
        "modules-1",
      ]);
      expect(send.packages).toContain("viem");
      for (const pkg of ["express", ...otherFamilies]) expect(send.packages).not.toContain(pkg);
    },
    TEST_TIMEOUT_MS,
  );
});
