/**
 * A webhook worker in a process of its own, for the crash test (webhook-worker-crash.test.ts): it
 * claims with a short lease and prints "ready" once listening. The test kills it with SIGKILL.
 */
import { silentLogger } from "@mp/core";
import { createDatabase, type DatabaseEngine } from "@mp/db";
import { createEncryptionKeyring } from "@mp/encryption";
import { startWebhookWorker } from "@mp/webhooks";

const db = createDatabase({
  connectionString: process.env.WORKER_DATABASE_URL ?? "",
  engine: (process.env.WORKER_DATABASE_ENGINE ?? "postgresql") as DatabaseEngine,
  max: 4,
});
await startWebhookWorker({
  db,
  keyring: createEncryptionKeyring({ current: Buffer.from(process.env.WORKER_ENCRYPTION_KEY ?? "", "base64") }),
  logger: silentLogger(),
  environment: "sandbox",
  leaseMs: Number(process.env.WORKER_LEASE_MS),
  pollIntervalMs: 50,
});
process.stdout.write("ready\n");
