import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const MAIN = `${ROOT}services/payments/src/main.ts`;
const TSX = `${ROOT}node_modules/.bin/tsx`;

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

function cleanEnv(env: Record<string, string | undefined>): NodeJS.ProcessEnv {
  const base: NodeJS.ProcessEnv = { ...process.env, LOG_LEVEL: "warn" };
  delete base.DATABASE_URL;
  delete base.DATA_DIR;
  for (const [k, v] of Object.entries(env)) {
    if (v === undefined) delete base[k];
    else base[k] = v;
  }
  return base;
}

/** Runs `payments <args>` exactly as an operator would (through tsx), and collects its output. */
export function runCli(args: string[], env: Record<string, string | undefined> = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(TSX, [MAIN, ...args], { cwd: ROOT, env: cleanEnv(env), stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c) => {
      stdout += c;
    });
    child.stderr.on("data", (c) => {
      stderr += c;
    });
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

/** The objects a `--json` command printed, one per line. */
export function jsonLines<T = Record<string, unknown>>(stdout: string): T[] {
  return stdout
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line) as T);
}

/** Starts `payments serve` in the background; resolves once it logs that the API listens. */
export async function startService(
  args: string[],
  env: Record<string, string | undefined>,
): Promise<{ child: ChildProcess; url: string; output: () => string }> {
  const started = await startRole(args, env, /"url":"(http:\/\/[^"]+)".*api listening/);
  return { child: started.child, url: started.match[1] ?? "", output: started.output };
}

/**
 * Starts `payments serve` in the background; resolves once its output matches `ready` (a role
 * without the API: `--role worker` logs "workers ready"). `processGroup`: the service runs in a
 * process group of its own, so killHard can end it: tsx runs the service in a child node process,
 * and a SIGKILL of tsx alone would leave that child running. `direct`: the service is this child
 * itself (`node --import tsx`), so its exit code and signal are the service's own.
 */
export function startRole(
  args: string[],
  env: Record<string, string | undefined>,
  ready: RegExp,
  options: { processGroup?: boolean; direct?: boolean } = {},
): Promise<{ child: ChildProcess; match: RegExpExecArray; output: () => string }> {
  return new Promise((resolve, reject) => {
    const [command, prefix] = options.direct ? [process.execPath, ["--import", "tsx"]] : [TSX, []];
    const child = spawn(command, [...prefix, MAIN, "serve", ...args], {
      cwd: ROOT,
      env: cleanEnv({ LOG_LEVEL: "info", ...env }),
      stdio: ["ignore", "pipe", "pipe"],
      detached: options.processGroup === true,
    });
    let output = "";
    const timer = setTimeout(() => reject(new Error(`service did not start:\n${output}`)), 60_000);
    const onData = (chunk: Buffer) => {
      output += chunk;
      const match = ready.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve({ child, match, output: () => output });
      }
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", onData);
    child.on("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`service exited with ${code}:\n${output}`));
    });
  });
}

/** `kill -9` of a service started with `processGroup`: tsx and the node process running the service. */
export function killHard(child: ChildProcess): void {
  if (child.pid === undefined) throw new Error("the process has no pid");
  process.kill(-child.pid, "SIGKILL");
}

export function waitForExit(child: ChildProcess, timeoutMs = 20_000): Promise<number | null> {
  return new Promise((resolve, reject) => {
    if (child.exitCode !== null) return resolve(child.exitCode);
    const timer = setTimeout(() => reject(new Error("process did not exit")), timeoutMs);
    child.once("exit", (code) => {
      clearTimeout(timer);
      resolve(code);
    });
  });
}
