// Compiles the `payments` command (services/payments/src/main.ts and every @mp/* package it reaches)
// into plain ES modules under dist/, so a command starts without transpiling TypeScript at every call.
// Why esbuild and not tsx at run time: `payments --help` cost 3.5-4.3 s of CPU under tsx (each of
// ~400 modules transpiled and resolved on load) against 0.5 s for `node -e 0`.
//
// - Code splitting: every `await import()` of the source is its own chunk, so a command loads only
//   what it runs (a read-only command never loads the chain clients or the test nodes).
// - npm packages are bundled too, each resolved from its importer as Node would (so the versions are
//   the lockfile's): loading ~1,000 files of node_modules one by one was most of a command's start.
//   `payments merchants create` took 2.7-2.9 CPU-s with them outside the bundle and 1.3-1.4 CPU-s
//   bundled, `ledger check` 1.1 against 0.8 (/usr/bin/time, this 2-core machine). The suite starts a
//   few hundred such processes. KEEP_EXTERNAL lists the packages that must stay outside, imported
//   from the file Node itself would resolve for the importing package (a relative path into
//   node_modules).
// - Each module keeps its own `import.meta.url` (the source file's), so files read beside the source
//   (migrations/, the dashboard's dist/, Solidity sources of the sandbox) are found as under tsx.
// - Each build goes to its own folder (dist/<id>/) and dist/current.json names the newest: a process
//   started from an older build keeps loading its own lazy chunks while a newer build lands.
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { isBuiltin } from "node:module";
import { basename, dirname, join, relative, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const SERVICE_DIR = fileURLToPath(new URL("../", import.meta.url));
const REPO_DIR = resolve(SERVICE_DIR, "../..");
const DIST_DIR = join(SERVICE_DIR, "dist");
const ENTRY = join(SERVICE_DIR, "src/main.ts");
/** Older builds are removed once no process can still be loading from them. */
const OLD_BUILD_MAX_AGE_MS = 24 * 60 * 60 * 1000;

/** Files whose change makes the build stale besides its inputs: new or other npm packages. */
export const EXTRA_STAMP_FILES = [join(REPO_DIR, "pnpm-lock.yaml"), join(SERVICE_DIR, "scripts/build.mjs")];

export async function buildService() {
  const { build } = await import("esbuild");
  mkdirSync(DIST_DIR, { recursive: true });
  // Stamped with the start: a source saved during the build makes the build stale.
  const builtAt = Date.now();
  const id = `b${Date.now().toString(36)}${process.pid.toString(36)}`;
  const tmpDir = join(DIST_DIR, `.${id}`);
  const outDir = join(DIST_DIR, id);
  const result = await build({ ...buildOptions(tmpDir), entryPoints: [ENTRY], splitting: true, metafile: true });
  // Our sources only: the npm packages' files change with pnpm-lock.yaml (EXTRA_STAMP_FILES).
  const inputs = Object.keys(result.metafile.inputs)
    .filter((input) => !input.includes("node_modules/"))
    .map((input) => resolve(REPO_DIR, input));
  writeFileSync(join(tmpDir, "inputs.json"), JSON.stringify(inputs));
  renameSync(tmpDir, outDir);
  writeFileSync(join(DIST_DIR, "current.json.tmp"), JSON.stringify({ id, builtAt }));
  renameSync(join(DIST_DIR, "current.json.tmp"), join(DIST_DIR, "current.json"));
  removeOldBuilds(id);
  return { id, main: join(outDir, "main.js") };
}

/** esbuild's options for a build written to `outdir`, the service's or a bench's process (bundleEntry). */
function buildOptions(outdir) {
  return {
    absWorkingDir: REPO_DIR,
    bundle: true,
    format: "esm",
    platform: "node",
    target: "node20",
    outdir,
    sourcemap: "linked",
    logLevel: "warning",
    // What Node itself uses: `main` and the `exports` conditions import/require + node + default.
    mainFields: ["main"],
    conditions: [],
    banner: {
      // Bundled CJS-style code (none of ours) would need require; keep it defined for ESM chunks.
      js: "import { createRequire as __mpCreateRequire } from 'node:module'; const require = __mpCreateRequire(import.meta.url);",
    },
    plugins: [externalPackages(outdir), ownImportMetaUrl()],
  };
}

/**
 * Compiles one TypeScript entry (and the @mp/* sources it reaches) into `outDir` as the service is
 * compiled, for plain node: a bench runs the code it measures as deployed, without tsx, whose
 * loader thread and transpiled sources would count in the measured process. Returns the module.
 */
export async function bundleEntry(entry, outDir) {
  const { build } = await import("esbuild");
  mkdirSync(outDir, { recursive: true });
  await build({ ...buildOptions(outDir), entryPoints: [entry] });
  return join(outDir, basename(entry).replace(/\.ts$/, ".js"));
}

/**
 * npm packages that stay outside the bundle: they load files beside their own modules (PGlite's .wasm
 * and .data, tiny-secp256k1's .wasm, the native addons node-gyp-build finds for ws), start worker
 * threads from their files by path (pino's transports), or are optional and not installed (pg-native,
 * which pg requires only when asked).
 */
const KEEP_EXTERNAL = [
  "@electric-sql/pglite",
  "tiny-secp256k1",
  "bufferutil",
  "utf-8-validate",
  "pino",
  "pino-pretty",
  "thread-stream",
  "esbuild",
];
const OPTIONAL_PACKAGES = ["pg-native"];

function keptExternal(path) {
  return [...KEEP_EXTERNAL, ...OPTIONAL_PACKAGES].some((name) => path === name || path.startsWith(`${name}/`));
}

/** npm packages in KEEP_EXTERNAL: external, imported by the path Node resolves from the importing source file. */
function externalPackages(tmpDir) {
  return {
    name: "external-packages",
    setup(build) {
      build.onResolve({ filter: /^[^./]/ }, async (args) => {
        if (args.pluginData === "resolving") return undefined;
        if (isBuiltin(args.path)) return { path: args.path, external: true };
        if (args.path.startsWith("@mp/")) return undefined;
        if (!keptExternal(args.path)) return undefined;
        if (OPTIONAL_PACKAGES.includes(args.path)) return { path: args.path, external: true };
        const found = await build.resolve(args.path, {
          kind: args.kind,
          resolveDir: args.resolveDir,
          importer: args.importer,
          pluginData: "resolving",
        });
        if (found.errors.length > 0) return { errors: found.errors };
        // Chunks sit directly in the build folder: a path relative to it (the folder is renamed
        // from tmpDir to outDir after the build, both one level below dist/).
        const path = relative(tmpDir, found.path).split("\\").join("/");
        return { path: path.startsWith(".") ? path : `./${path}`, external: true };
      });
    },
  };
}

/** Each module's `import.meta.url` stays its source file's URL. */
function ownImportMetaUrl() {
  return {
    name: "own-import-meta-url",
    setup(build) {
      build.onLoad({ filter: /\.ts$/ }, (args) => {
        const source = readFileSync(args.path, "utf8");
        if (!source.includes("import.meta.url")) return undefined;
        const url = JSON.stringify(pathToFileURL(args.path).href);
        return { contents: source.replaceAll("import.meta.url", url), loader: "ts", resolveDir: dirname(args.path) };
      });
    },
  };
}

function removeOldBuilds(keep) {
  const now = Date.now();
  for (const entry of readdirSync(DIST_DIR)) {
    if (entry === keep || entry === "current.json") continue;
    const path = join(DIST_DIR, entry);
    try {
      if (now - statSync(path).mtimeMs > OLD_BUILD_MAX_AGE_MS) rmSync(path, { recursive: true, force: true });
    } catch {
      // Removed by a concurrent build: nothing to do.
    }
  }
}

/** The current build's main module if no input changed since it was built, else undefined. */
export function currentBuild() {
  let current;
  try {
    current = JSON.parse(readFileSync(join(DIST_DIR, "current.json"), "utf8"));
  } catch {
    return undefined;
  }
  const dir = join(DIST_DIR, current.id);
  let inputs;
  try {
    inputs = JSON.parse(readFileSync(join(dir, "inputs.json"), "utf8"));
  } catch {
    return undefined;
  }
  for (const file of [...inputs, ...EXTRA_STAMP_FILES]) {
    try {
      if (statSync(file).mtimeMs > current.builtAt) return undefined;
    } catch {
      return undefined;
    }
  }
  return join(dir, "main.js");
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const t = performance.now();
  const { id } = await buildService();
  process.stderr.write(`payments built into dist/${id} in ${Math.round(performance.now() - t)} ms\n`);
}
