import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { afterAll, expect } from "vitest";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
/**
 * The `payments` command as an operator runs it (`pnpm payments`): the compiled build, rebuilt by
 * the launcher if a source changed (the suite's global setup builds it once before any file runs).
 */
/** How long a started role may take to log that it is ready. */
const SERVICE_START_TIMEOUT_MS = 180_000;

export const PAYMENTS_BIN = `${ROOT}services/payments/bin/payments.mjs`;

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

/** Runs `payments <args>` exactly as an operator would, and collects its output. */
export function runCli(args: string[], env: Record<string, string | undefined> = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [PAYMENTS_BIN, ...args], {
      cwd: ROOT,
      env: cleanEnv(env),
      stdio: ["ignore", "pipe", "pipe"],
    });
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

/**
 * Runs `payments <args>` as runCli does, for a step that must succeed: a non-zero exit fails the
 * test with everything the command printed. Its stdout.
 */
export async function runCliOk(args: string[], env: Record<string, string | undefined> = {}): Promise<string> {
  const result = await runCli(args, env);
  expect(result.code, result.stdout + result.stderr).toBe(0);
  return result.stdout;
}

/**
 * Runs `payments <args>` as runCli does, for a step the CLI must refuse: exit 1, its stderr saying
 * each of `says` and showing none of `hides` (the secrets it was given); else the test fails with
 * everything the command printed. Its stderr.
 */
export async function runCliRefused(
  args: string[],
  env: Record<string, string | undefined> = {},
  says: string[] = [],
  hides: string[] = [],
): Promise<string> {
  const result = await runCli(args, env);
  expect(result.code, result.stdout + result.stderr).toBe(1);
  for (const text of says) expect(result.stderr).toContain(text);
  for (const secret of hides) expect(result.stderr).not.toContain(secret);
  return result.stderr;
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
 * Every service this test file started whose process group may still run: a test that times out
 * never reaches its own teardown, so the file's afterAll (and, failing that, the worker's exit) ends
 * the whole group with SIGKILL: tsx, the node process running the service, and what the service
 * spawned (the local sandbox's anvils).
 */
const started = new Set<ChildProcess>();

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, signal);
  } catch (error) {
    // ESRCH: the group has ended already.
    if ((error as NodeJS.ErrnoException).code !== "ESRCH") throw error;
  }
}

// Benches (`pnpm bench`) import this outside vitest, where afterAll throws: the exit hook covers them.
if (process.env.VITEST) {
  afterAll(() => {
    for (const child of started) killGroup(child, "SIGKILL");
    started.clear();
  });
}
process.once("exit", () => {
  for (const child of started) killGroup(child, "SIGKILL");
});

/**
 * Starts `payments serve` in the background; resolves once its output matches `ready` (a role
 * without the API: `--role worker` logs "workers ready"). The service is the child itself (its exit
 * code and signal are the service's own) in a process group of its own with what it starts (the
 * local sandbox's anvils): killHard, a service that never got ready, and the file's teardown end the
 * whole group, so nothing outlives the test file. Starting is bounded generously (a loaded 2-core
 * machine has taken 40 s and more), never as a race.
 */
export function startRole(
  args: string[],
  env: Record<string, string | undefined>,
  ready: RegExp,
): Promise<{ child: ChildProcess; match: RegExpExecArray; output: () => string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [PAYMENTS_BIN, "serve", ...args], {
      cwd: ROOT,
      env: cleanEnv({ LOG_LEVEL: "info", ...env }),
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    });
    started.add(child);
    let output = "";
    const timer = setTimeout(() => {
      killGroup(child, "SIGKILL");
      reject(new Error(`service did not start within ${SERVICE_START_TIMEOUT_MS / 1000} s:\n${output}`));
    }, SERVICE_START_TIMEOUT_MS);
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
    child.once("exit", (code, signal) => {
      clearTimeout(timer);
      // The group may outlive its leader (an anvil the service started): ended with it.
      killGroup(child, "SIGKILL");
      started.delete(child);
      // A started service that ends by itself with an error code, not by a test's signal: its last
      // output on the test's stderr, so a failure that follows (a connection closed) says why.
      if (ready.test(output) && signal === null && code !== 0) {
        process.stderr.write(
          `payments serve ${args.join(" ")} exited with ${code}; its output ended:\n${output.slice(-4_000)}\n`,
        );
      }
      // Settles nothing once started (a promise settles once): an exit before ready is the failure.
      reject(new Error(`service exited with ${code}:\n${output}`));
    });
  });
}

/** `kill -9` of a started service's process group: the service and what it started. */
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
