import { silentLogger } from "@mp/core";
import { createDatabase, type Database } from "@mp/db";
import { startWebhookWorker, type WebhookWorker } from "@mp/webhooks";
import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import { eventually } from "../support/api-harness.ts";
import { deferred } from "../support/deferred.ts";
import { createEndpoint, emitEvent } from "../support/webhook-fixtures.ts";
import { type Answer, startReceiver } from "../support/webhook-receiver.ts";
import { spawnWorkerProcess, startSurvivor, useCrashTestHarness } from "./crash-workers.ts";

/**
 * Results are written in batches, after the POSTs they record: between the two, the receiver has the
 * delivery and the database does not know yet. A crash there must send it again (at least once), and
 * a result must be written once or not at all, so that attempts (the count the backoff reads) stays
 * the number of requests made.
 */
const onServer = Boolean(process.env.DATABASE_URL);

describe.skipIf(!onServer)(
  "a webhook result between its POST and its write (PostgreSQL only: it kills the worker's connections and waits on locks; the embedded database has one connection)",
  () => {
    const { api, merchant } = useCrashTestHarness();

    /**
     * Holds the endpoint's delivery row locked (so the worker's result write waits on it) from before
     * the receiver answers until `release()`; resolves `blocked` once a backend waits on that lock.
     */
    function holdResultWrite(endpointId: string) {
      const { promise: gate, resolve: release } = deferred();
      const { promise: lockTaken, resolve: locked } = deferred();
      const holder = api.db.tx(async (c) => {
        await c.query("SELECT 1 FROM webhook_deliveries WHERE endpoint_id = $1 FOR UPDATE", [endpointId]);
        locked();
        await gate;
      });
      const blockedPid = async () =>
        eventually(
          async () => {
            const { rows } = await api.db.query<{ pid: number }>(
              `SELECT pid FROM pg_stat_activity
            WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE '%webhook_delivery_attempts%'`,
            );
            return rows[0]?.pid;
          },
          20_000,
          20,
        );
      return {
        lockTaken,
        blockedPid,
        release: async () => {
          release();
          await holder;
        },
      };
    }

    /**
     * The receiver's answer that holds the result write first: its first request locks the endpoint's
     * delivery row (holdResultWrite) and is answered once the lock is taken, so the result is then
     * certain to wait. `held()` is that hold, once the request came.
     */
    function answerHoldingResultWrite(endpointId: string) {
      let held: ReturnType<typeof holdResultWrite> | undefined;
      const answer: Answer = (_received, res) => {
        held ??= holdResultWrite(endpointId);
        void held.lockTaken.then(() => res.end("ok"));
      };
      return { answer, held: () => held };
    }

    async function deliveryOf(endpointId: string) {
      const { rows } = await api.db.query<{ status: string; attempts: number; attempt_rows: string }>(
        `SELECT d.status, d.attempts,
              (SELECT count(*) FROM webhook_delivery_attempts a WHERE a.delivery_id = d.id) AS attempt_rows
         FROM webhook_deliveries d WHERE d.endpoint_id = $1`,
        [endpointId],
      );
      return rows;
    }

    /** The endpoint's delivery rows once its delivery has succeeded. */
    async function whenSucceeded(endpointId: string) {
      return eventually(
        async () => {
          const rows = await deliveryOf(endpointId);
          return rows[0]?.status === "succeeded" ? rows : undefined;
        },
        20_000,
        50,
      );
    }

    it("a worker killed after the POST and before its result is written: sent again after the lease, counted once each", async () => {
      const hooks = await startReceiver((_received, res) => res.end("ok"));
      const endpoint = await createEndpoint(api, merchant, hooks.url);
      const { child, exited } = await spawnWorkerProcess(api);
      let survivor: WebhookWorker | undefined;
      const holding = answerHoldingResultWrite(endpoint.id);
      try {
        hooks.answer = holding.answer;
        const eventId = await emitEvent(api.db, merchant.merchantId);
        const pid = await eventually(async () => holding.held()?.blockedPid(), 20_000, 20);
        expect(hooks.received).toHaveLength(1);
        child.kill("SIGKILL");
        expect(await exited).toBe("SIGKILL");
        // Its connection goes with it (the server notices a dead client only when it next writes to it:
        // a statement already under way would otherwise finish, and the result then be written once).
        await api.db.query("SELECT pg_terminate_backend($1)", [pid]);
        await holding.held()?.release();
        hooks.answer = (_received, res) => res.end("ok");
        // The result died with the process: the delivery is still claimed for its first attempt.
        expect(await deliveryOf(endpoint.id)).toEqual([{ status: "pending", attempts: 1, attempt_rows: "0" }]);

        survivor = await startSurvivor(api.db, api.deps.encryption);
        const second = await eventually(async () => hooks.received[1], 20_000, 20);
        expect(second.headers["webhook-id"]).toBe(eventId);
        new Webhook(endpoint.secret).verify(second.body, second.headers);
        // Two requests made, two counted; the one result written is the second's.
        const done = await whenSucceeded(endpoint.id);
        expect(done).toEqual([{ status: "succeeded", attempts: 2, attempt_rows: "1" }]);
        expect(hooks.received).toHaveLength(2);
      } finally {
        child.kill("SIGKILL");
        await holding.held()?.release();
        await survivor?.stop();
        await hooks.stop();
      }
    }, 90_000);

    it("a result write whose connection is killed is written again by the same worker, once", async () => {
      const hooks = await startReceiver((_received, res) => res.end("ok"));
      const endpoint = await createEndpoint(api, merchant, hooks.url);
      // The worker's own pool: the connection killed is one of its, not the harness's.
      const workerDb: Database = createDatabase({
        connectionString: api.testDb.connectionString,
        engine: api.db.engine,
        max: 4,
      });
      let worker: WebhookWorker | undefined;
      const holding = answerHoldingResultWrite(endpoint.id);
      try {
        hooks.answer = holding.answer;
        worker = await startWebhookWorker({
          db: workerDb,
          keyring: api.deps.encryption,
          logger: silentLogger(),
          environment: "sandbox",
          pollIntervalMs: 50,
        });
        await emitEvent(api.db, merchant.merchantId);
        const pid = await eventually(async () => holding.held()?.blockedPid(), 20_000, 20);
        await api.db.query("SELECT pg_terminate_backend($1)", [pid]);
        await holding.held()?.release();
        // Written on the retry (a second later), within the lease: one request, one attempt, counted once.
        const done = await whenSucceeded(endpoint.id);
        expect(done).toEqual([{ status: "succeeded", attempts: 1, attempt_rows: "1" }]);
        expect(hooks.received).toHaveLength(1);
      } finally {
        await holding.held()?.release();
        await worker?.stop();
        await workerDb.close();
        await hooks.stop();
      }
    }, 90_000);
  },
);
