import { type ChildProcessByStdio, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import type { Readable } from "node:stream";
import { fileURLToPath } from "node:url";
import { silentLogger } from "@mp/core";
import type { Database } from "@mp/db";
import { createEncryptionKeyring, type EncryptionKeyring } from "@mp/encryption";
import { startWebhookWorker, type WebhookWorker } from "@mp/webhooks";
import { type ApiHarness, useApiHarness } from "../support/api-harness.ts";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

/** The key the crash tests' app and the workers they spawn seal secrets with: one keyring for both. */
const KEY = randomBytes(32);
/** A spawned worker's claim lease: short, so a survivor takes a dead worker's deliveries within a test. */
const LEASE_MS = 2_000;

/** The API harness of a crash test: its app seals with the key the spawned workers are given. */
export const useCrashTestHarness = () =>
  useApiHarness({ overrides: { encryption: createEncryptionKeyring({ current: KEY }) } });

/**
 * Workers of the crash tests. The worker of worker-process.ts on the harness's database, started and
 * ready; `exited` resolves with the signal that ended it.
 */
export async function spawnWorkerProcess(
  api: ApiHarness,
): Promise<{ child: ChildProcessByStdio<null, Readable, null>; exited: Promise<NodeJS.Signals | null> }> {
  // node itself with tsx's loader, not the tsx command: that one runs the script in a child process of
  // its own, which a SIGKILL of the command would leave running.
  const child = spawn(process.execPath, ["--import", "tsx", `${ROOT}test/webhooks/worker-process.ts`], {
    cwd: ROOT,
    env: {
      ...process.env,
      WORKER_DATABASE_URL: api.testDb.connectionString,
      WORKER_DATABASE_ENGINE: api.db.engine,
      WORKER_ENCRYPTION_KEY: KEY.toString("base64"),
      WORKER_LEASE_MS: String(LEASE_MS),
    },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on("exit", (_code, signal) => resolve(signal)));
  await new Promise<void>((resolve, reject) => {
    child.stdout.on("data", (chunk: Buffer) => chunk.toString().includes("ready") && resolve());
    child.on("exit", () => reject(new Error("worker process exited before it was ready")));
  });
  return { child, exited };
}

/** The worker that takes over from a dead one, in this process, polling often. */
export function startSurvivor(db: Database, keyring: EncryptionKeyring): Promise<WebhookWorker> {
  return startWebhookWorker({ db, keyring, logger: silentLogger(), environment: "sandbox", pollIntervalMs: 50 });
}
