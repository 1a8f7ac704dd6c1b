import { randomUUID } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { createMerchant } from "@mp/api";
import { type Database, openDatabase } from "@mp/db";
import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import { eventually } from "../support/api-harness.ts";
import { useTempDir, useTestDatabase } from "../support/test-database.ts";
import { emitEvent } from "../support/webhook-fixtures.ts";
import { startReceiver } from "../support/webhook-receiver.ts";
import { runCli, startService, waitForExit } from "./run-cli.ts";

/** `payments serve` through tsx: seconds alone, longer under a loaded machine. */
const TIMEOUT_MS = 180_000;

describe("webhooks in the real process", () => {
  const dir = useTempDir("mphooks-");
  const database = useTestDatabase();
  const chainsFile = join(dir, "chains.json");
  // One configured chain: `all` without CHAINS_CONFIG would start every local sandbox chain.
  writeFileSync(chainsFile, JSON.stringify({ chains: { BASE: { rpcUrl: "http://127.0.0.1:9" } } }));
  // The server's test database, or (embedded run) the service's own PGlite in DATA_DIR, which the
  // test and the CLI join: a PGlite socket given as DATABASE_URL would be taken for a server (one
  // session per connection) and its named statements would collide in PGlite's one session.
  const env = () => ({
    DATABASE_URL: process.env.DATABASE_URL ? database.connectionString : undefined,
    DATA_DIR: join(dir, "data"),
    CHAINS_CONFIG: chainsFile,
  });

  it(
    "serve --role all delivers signed events; webhooks replay queues what a disabled endpoint missed, once",
    async () => {
      const hooks = await startReceiver();
      const service = await startService(["--role", "all"], { ...env(), PORT: "0" });
      const db: Database = process.env.DATABASE_URL
        ? database.db
        : (await openDatabase({ databaseUrl: undefined, dataDir: join(dir, "data"), poolSize: 1 })).db;
      try {
        const { merchantId, key } = await createMerchant(db, { name: "hooks", environment: "sandbox" });
        const call = (path: string, init: { method: string; json?: unknown }) =>
          fetch(`${service.url}${path}`, {
            method: init.method,
            headers: {
              "x-service-api-key": key.apiKey,
              "x-idempotency-key": randomUUID(),
              "content-type": "application/json",
            },
            ...(init.json === undefined ? {} : { body: JSON.stringify(init.json) }),
          }).then(async (r) => ({ status: r.status, body: (await r.json()) as { data: Record<string, string> } }));
        const created = await call("/v1/webhook-endpoints", {
          method: "POST",
          json: { url: hooks.url, enabled_events: ["*"] },
        });
        expect(created.status).toBe(201);
        const { id, secret } = created.body.data as { id: string; secret: string };

        const first = await emitEvent(db, merchantId);
        const got = await eventually(async () => hooks.received[0], 30_000);
        expect(got.headers["webhook-id"]).toBe(first);
        new Webhook(secret).verify(got.body, got.headers);

        const from = new Date(Date.now() - 60_000).toISOString();
        expect(
          (await call(`/v1/webhook-endpoints/${id}`, { method: "PATCH", json: { status: "disabled" } })).status,
        ).toBe(200);
        const missed = await emitEvent(db, merchantId);
        expect(
          (await call(`/v1/webhook-endpoints/${id}`, { method: "PATCH", json: { status: "enabled" } })).status,
        ).toBe(200);
        const to = new Date(Date.now() + 60_000).toISOString();

        const replay = ["webhooks", "replay", "--from", from, "--to", to, "--merchant", merchantId];
        const replayed = await runCli(replay, env());
        expect(replayed).toMatchObject({ code: 0, stdout: '{"queued":1}\n' });
        const again = await eventually(async () => hooks.received[1], 30_000);
        expect(again.headers["webhook-id"]).toBe(missed);
        // Delivered or pending: a second run queues nothing.
        expect((await runCli(replay, env())).stdout).toBe('{"queued":0}\n');
        const backwards = await runCli(["webhooks", "replay", "--from", to, "--to", from], env());
        expect(backwards.code).toBe(1);
        expect(backwards.stderr).toContain("--to must be after --from");
      } finally {
        if (db !== database.db) await db.close();
        service.child.kill("SIGTERM");
        expect(await waitForExit(service.child)).toBe(0);
        await hooks.stop();
      }
    },
    TIMEOUT_MS,
  );
});
