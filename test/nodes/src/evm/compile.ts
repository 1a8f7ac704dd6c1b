import { createHash } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath, pathToFileURL } from "node:url";
import { z } from "zod";
import {
  CONTRACTS_ARTIFACT_URL,
  CONTRACTS_SOURCE_URL,
  type ContractsArtifact,
  contractsArtifactSchema,
  TEST_CONTRACT_NAMES,
} from "./test-contracts.ts";

/**
 * Compiles `contracts/TestToken.sol` with solc from npm (solc-js, the version pinned in the root
 * package.json) into the artifact the harness deploys. Run `npx tsx test/nodes/src/evm/compile.ts`
 * after changing the source; a test recompiles and checks the artifact is current.
 */

const SOURCE_NAME = "TestToken.sol";

/** Fixed settings: the same source always yields the same bytecode. */
export const COMPILER_SETTINGS = {
  optimizer: { enabled: true, runs: 200 },
  // Cancun: supported by anvil and by every chain the service indexes.
  evmVersion: "cancun",
  outputSelection: { "*": { "*": ["abi", "evm.bytecode.object"] } },
} as const;

const solcOutputSchema = z.object({
  errors: z.array(z.object({ severity: z.string(), formattedMessage: z.string() })).optional(),
  contracts: z
    .record(
      z.string(),
      z.record(
        z.string(),
        z.object({
          abi: z.array(z.record(z.string(), z.unknown())),
          evm: z.object({ bytecode: z.object({ object: z.string() }) }),
        }),
      ),
    )
    .optional(),
});

export interface CompiledContract {
  abi: Record<string, unknown>[];
  bytecode: `0x${string}`;
}

/**
 * solc-js, loaded at the first compilation rather than with this module: its emscripten compiler
 * costs a process about 100 MB of memory, which every importer of `@mp/test-nodes/evm` paid (the
 * indexer bench's RSS included) though only the mock price feed and the artifact check compile.
 */
interface SolcJs {
  compile(input: string): string;
  version(): string;
}
let solc: SolcJs | undefined;
const loadSolc = (): SolcJs => {
  solc ??= createRequire(import.meta.url)("solc") as SolcJs;
  return solc;
};

/** Compiles one Solidity source with COMPILER_SETTINGS: every contract and interface it declares, by name. */
export function compileSolidity(sourceName: string, source: string): Record<string, CompiledContract> {
  const input = { language: "Solidity", sources: { [sourceName]: { content: source } }, settings: COMPILER_SETTINGS };
  const output = solcOutputSchema.parse(JSON.parse(loadSolc().compile(JSON.stringify(input))));
  const errors = (output.errors ?? []).filter((e) => e.severity === "error");
  if (errors.length > 0) throw new Error(`solc: ${errors.map((e) => e.formattedMessage).join("\n")}`);
  const compiled = output.contracts?.[sourceName] ?? {};
  return Object.fromEntries(
    Object.entries(compiled).map(([name, c]) => [
      name,
      { abi: c.abi, bytecode: `0x${c.evm.bytecode.object}` as const },
    ]),
  );
}

export function compileTestContracts(): ContractsArtifact {
  const source = readFileSync(CONTRACTS_SOURCE_URL, "utf8");
  const compiled = compileSolidity(SOURCE_NAME, source);
  const contracts: Record<string, CompiledContract> = {};
  for (const name of TEST_CONTRACT_NAMES) {
    const contract = compiled[name];
    if (!contract) throw new Error(`solc: ${name} missing from the output`);
    contracts[name] = contract;
  }
  return contractsArtifactSchema.parse({
    compiler: String(loadSolc().version()),
    settings: COMPILER_SETTINGS,
    sourceSha256: createHash("sha256").update(source).digest("hex"),
    contracts,
  });
}

export function writeContractsArtifact(artifact: ContractsArtifact): void {
  writeFileSync(CONTRACTS_ARTIFACT_URL, `${JSON.stringify(artifact, null, 2)}\n`);
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const started = performance.now();
  writeContractsArtifact(compileTestContracts());
  process.stdout.write(
    `wrote ${fileURLToPath(CONTRACTS_ARTIFACT_URL)} in ${Math.round(performance.now() - started)} ms\n`,
  );
}
