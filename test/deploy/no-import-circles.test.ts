import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { sourceFiles } from "./source-files.ts";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const WORKSPACE_FOLDERS = ["packages", "chains", "services"];

/**
 * Every static import or re-export, type-only ones included: a circle through a type still ties two
 * modules into one (neither can be read, moved or tested without the other). `await import(...)` is
 * left out: a lazy load at run time is how a module deliberately reaches one it must not depend on.
 */
const IMPORT = /^\s*(?:import|export)\s+(?:type\s+)?(?:[^;"'`]*?\s+from\s+)?["']([^"']+)["']/gm;

interface WorkspacePackage {
  dir: string;
  exports: Record<string, string>;
}

/** The workspace packages by name, each with its `exports` map ("." -> "./src/index.ts", ...). */
function workspacePackages(): Map<string, WorkspacePackage> {
  const packages = new Map<string, WorkspacePackage>();
  for (const top of WORKSPACE_FOLDERS) {
    for (const entry of readdirSync(join(ROOT, top), { withFileTypes: true })) {
      const manifest = join(ROOT, top, entry.name, "package.json");
      if (!entry.isDirectory() || !existsSync(manifest)) continue;
      const { name, exports } = JSON.parse(readFileSync(manifest, "utf8")) as {
        name: string;
        exports?: string | Record<string, string>;
      };
      const map = typeof exports === "string" ? { ".": exports } : (exports ?? {});
      packages.set(name, { dir: join(ROOT, top, entry.name), exports: map });
    }
  }
  return packages;
}

function resolveImport(from: string, specifier: string, packages: Map<string, WorkspacePackage>): string | undefined {
  if (specifier.startsWith(".")) {
    const target = resolve(dirname(from), specifier);
    return existsSync(target) ? target : undefined;
  }
  const [scope, name, ...rest] = specifier.split("/");
  const pkg = packages.get(`${scope}/${name}`);
  const subpath = rest.length > 0 ? `./${rest.join("/")}` : ".";
  const target = pkg?.exports[subpath];
  return pkg && target ? resolve(pkg.dir, target) : undefined;
}

/** The import graph of the production sources (each package's, chain family's and service's `src`). */
function importGraph(): Map<string, string[]> {
  const packages = workspacePackages();
  const files = [...packages.values()].flatMap((pkg) => sourceFiles(join(pkg.dir, "src")));
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const text = readFileSync(file, "utf8");
    const targets = [...text.matchAll(IMPORT)]
      .map((match) => resolveImport(file, match[1] ?? "", packages))
      .filter((target): target is string => target !== undefined);
    graph.set(file, [...new Set(targets)]);
  }
  return graph;
}

/** Tarjan's strongly connected components with more than one file (or a file importing itself). */
function circles(graph: Map<string, string[]>): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (node: string): void => {
    index.set(node, counter);
    low.set(node, counter);
    counter++;
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node) ?? 0, low.get(next) ?? 0));
      } else if (onStack.has(next)) {
        low.set(node, Math.min(low.get(node) ?? 0, index.get(next) ?? 0));
      }
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    let member: string | undefined;
    do {
      member = stack.pop();
      if (member === undefined) break;
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    if (component.length > 1 || (graph.get(node) ?? []).includes(node)) found.push(component.sort());
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return found;
}

describe("production imports", () => {
  it("form no circle, type-only imports included", () => {
    const graph = importGraph();
    expect(graph.size).toBeGreaterThan(100);
    const found = circles(graph).map((component) => component.map((file) => relative(ROOT, file)));
    expect(found).toEqual([]);
  });

  it("never point up to their own package's surface: no file imports its package's index", () => {
    const graph = importGraph();
    const surfaces = [...workspacePackages().values()].map((pkg) => ({
      dir: pkg.dir,
      index: pkg.exports["."] ? resolve(pkg.dir, pkg.exports["."]) : undefined,
    }));
    const upward = [...graph].flatMap(([file, targets]) => {
      const own = surfaces.find((pkg) => file.startsWith(`${pkg.dir}/`));
      if (!own?.index || file === own.index) return [];
      return targets.includes(own.index) ? [relative(ROOT, file)] : [];
    });
    expect(upward).toEqual([]);
  });

  it("the graph sees relative, workspace and type-only imports (a circle made on purpose is found)", () => {
    const graph = new Map([
      ["a", ["b"]],
      ["b", ["c"]],
      ["c", ["a"]],
      ["d", ["a"]],
    ]);
    expect(circles(graph)).toEqual([["a", "b", "c"]]);
    const packages = workspacePackages();
    const from = join(ROOT, "packages/db/src/index.ts");
    expect(resolveImport(from, "./leases.ts", packages)).toBe(join(ROOT, "packages/db/src/leases.ts"));
    expect(resolveImport(from, "@mp/db/testing", packages)).toBe(join(ROOT, "packages/db/src/testing.ts"));
    expect(resolveImport(from, "@mp/core", packages)).toBe(join(ROOT, "packages/core/src/index.ts"));
    expect(resolveImport(from, "pg", packages)).toBeUndefined();
    const typeImport = 'import type {\n  Database,\n} from "./database.ts";\nexport { x } from "./x.ts";';
    expect([...typeImport.matchAll(IMPORT)].map((m) => m[1])).toEqual(["./database.ts", "./x.ts"]);
  });
});
