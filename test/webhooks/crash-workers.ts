import { type ChildProcessByStdio, spawn } from "node:child_process";
import type { Readable } from "node:stream";
import { fileURLToPath } from "node:url";
import { silentLogger } from "@mp/core";
import type { Database } from "@mp/db";
import type { EncryptionKeyring } from "@mp/encryption";
import { startWebhookWorker, type WebhookWorker } from "@mp/webhooks";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

/** Workers of the crash tests. The worker of worker-process.ts, started and ready; `exited` resolves with the signal that ended it. */
export async function spawnWorkerProcess(options: {
  connectionString: string;
  engine: string;
  key: Buffer;
  leaseMs: number;
}): Promise<{ child: ChildProcessByStdio<null, Readable, null>; exited: Promise<NodeJS.Signals | null> }> {
  // node itself with tsx's loader, not the tsx command: that one runs the script in a child process of
  // its own, which a SIGKILL of the command would leave running.
  const child = spawn(process.execPath, ["--import", "tsx", `${ROOT}test/webhooks/worker-process.ts`], {
    cwd: ROOT,
    env: {
      ...process.env,
      WORKER_DATABASE_URL: options.connectionString,
      WORKER_DATABASE_ENGINE: options.engine,
      WORKER_ENCRYPTION_KEY: options.key.toString("base64"),
      WORKER_LEASE_MS: String(options.leaseMs),
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
