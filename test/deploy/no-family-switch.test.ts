import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { sourceFiles } from "./source-files.ts";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const FAMILIES = ["evm", "solana", "bitcoin", "tron"] as const;
const LITERAL = `"(?:${FAMILIES.join("|")})"`;

/**
 * What branches on a chain family: a family literal compared (`=== "bitcoin"`), a `case "evm":`, a
 * map keyed by family (`Record<ChainFamily, ...>`), a factory table (`evm: createEvm...`).
 */
const BRANCH = new RegExp(
  [
    `(?:===|!==)\\s*${LITERAL}`,
    `${LITERAL}\\s*(?:===|!==)`,
    `case\\s+${LITERAL}\\s*:`,
    "Record<ChainFamily\\b",
    `\\b(?:${FAMILIES.join("|")})\\s*:\\s*create[A-Z]`,
  ].join("|"),
);

/**
 * Where a family branch may still be, and why. A family's own folder (chains/<family>) checks that
 * it was given one of its chains (the registry, services/payments/src/chain-families.ts, lists the
 * records and branches on none). Custody derives and encodes every family's keys through the key
 * schemes the families' records carry (issue 28 item 2), so nothing is left here but core's chain
 * table and the registry's lazy form, and nothing else may be added.
 */
const ALLOWED: Record<string, string> = {
  "packages/core/src/chains.ts": "defines chainFamily, isEvmChain and the stored address key",
  "services/payments/src/load-chain-family.ts":
    "the registry's lazy form: one import per family, so a one-shot command loads only its chain's package " +
    "(services/payments/test/load-chain-family.test.ts checks each against the registry's record)",
};

function productionSources(): string[] {
  return ["packages", "chains", "services"].flatMap((top) =>
    readdirSync(join(ROOT, top), { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .flatMap((entry) => sourceFiles(join(ROOT, top, entry.name, "src"))),
  );
}

/** The lines of `file` that branch on a family other than the folder's own (chains/<family>). */
function familyBranches(file: string, text: string): string[] {
  const own = /^chains\/([a-z]+)\//.exec(file)?.[1];
  return text
    .split("\n")
    .map((line, i) => ({ line, n: i + 1 }))
    .filter(({ line }) => BRANCH.test(line))
    .filter(({ line }) => !own || FAMILIES.some((f) => f !== own && line.includes(`"${f}"`)))
    .map(({ line, n }) => `${file}:${n}: ${line.trim()}`);
}

describe("no chain-family switch outside chains/<family> and the registry", () => {
  it("finds none", () => {
    const found = productionSources().flatMap((path) => {
      const file = relative(ROOT, path);
      return file in ALLOWED ? [] : familyBranches(file, readFileSync(path, "utf8"));
    });
    expect(found).toEqual([]);
  });

  it("sees a switch where there is one", () => {
    const text = 'switch (chainFamily(chain)) {\n  case "evm":\n    return 1;\n}\nif (family === "tron") x();';
    expect(familyBranches("packages/treasury/src/x.ts", text)).toHaveLength(2);
    expect(familyBranches("chains/tron/src/x.ts", 'if (f !== "tron") throw e;')).toEqual([]);
    expect(familyBranches("chains/tron/src/x.ts", 'if (f === "evm") x();')).toHaveLength(1);
  });

  it("allows only files that still exist and still branch", () => {
    const stale = Object.keys(ALLOWED).filter((file) => {
      const path = join(ROOT, file);
      return !existsSync(path) || familyBranches("packages/x/src/y.ts", readFileSync(path, "utf8")).length === 0;
    });
    expect(stale).toEqual([]);
  });
});
