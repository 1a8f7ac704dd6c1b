import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const PRODUCTION_SOURCES = ["packages", "chains", "services"];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === "node_modules" || entry.name === "dist" ? [] : sourceFiles(path);
    return entry.name.endsWith(".ts") || entry.name.endsWith(".tsx") ? [path] : [];
  });
}

/** Every production source file: the `src` folders of the packages, chain families and services. */
function productionFiles(): string[] {
  return PRODUCTION_SOURCES.flatMap((top) =>
    readdirSync(join(ROOT, top), { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .flatMap((entry) => {
        try {
          return sourceFiles(join(ROOT, top, entry.name, "src"));
        } catch {
          return [];
        }
      }),
  );
}

describe("production code", () => {
  it("never imports the test nodes statically: only the local sandbox loads them, when it starts", () => {
    // A static import (`import x from` / `export ... from`), not `import type` nor `await import(...)`.
    const staticImport = /^\s*(import|export)\s+(?!type\b)[^;]*?from\s+["']@mp\/test-nodes[^"']*["']/m;
    const offenders = productionFiles()
      .filter((file) => staticImport.test(readFileSync(file, "utf8")))
      .map((file) => relative(ROOT, file));
    expect(offenders).toEqual([]);
  });
});
