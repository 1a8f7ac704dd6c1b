import type { ChildProcess } from "node:child_process";
import { createMerchant } from "@mp/api";
import type { Database } from "@mp/db";
import { createTestDatabase, type TestDatabase } from "@mp/db/testing";
import { DEFAULT_JOB_HEARTBEAT_SECONDS, jobRedeliveryBoundSeconds } from "@mp/jobs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { individualTier1, individualTier2 } from "../api/verification-fixtures.ts";
import { killHard, startRole, startService, waitForExit } from "../cli/run-cli.ts";
import { eventually } from "../support/api-harness.ts";
import { connectionTarget, startTcpProxy, viaProxy } from "../support/tcp-proxy.ts";
import { useTempDir } from "../support/test-database.ts";
import { POSTGRES_ONLY, sharedProcessEnv, stopProcess } from "./several-processes.ts";

const TIMEOUT_MS = 240_000;
/** The bound the queue promises, plus room for a loaded 2-core machine's scheduling. */
const REDELIVERY_LIMIT_MS = (jobRedeliveryBoundSeconds(DEFAULT_JOB_HEARTBEAT_SECONDS) + 8) * 1000;

/**
 * Every UPDATE of a customer, a verification attempt or a virtual account, recorded by a trigger of this test's database
 * (an observer only): an effect applied twice shows as a second row even when it writes the same values.
 */
const OBSERVE_UPDATES = `
  CREATE TABLE test_row_updates (seq bigserial PRIMARY KEY, tbl text NOT NULL, id uuid NOT NULL,
    old_status text NOT NULL, new_status text NOT NULL);
  CREATE FUNCTION test_record_update() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    INSERT INTO test_row_updates (tbl, id, old_status, new_status) VALUES (TG_TABLE_NAME, NEW.id, OLD.status, NEW.status);
    RETURN NEW;
  END $$;
  CREATE TRIGGER test_customer_updates AFTER UPDATE ON customers FOR EACH ROW EXECUTE FUNCTION test_record_update();
  CREATE TRIGGER test_submission_updates AFTER UPDATE ON verification_submissions
    FOR EACH ROW EXECUTE FUNCTION test_record_update();
  CREATE TRIGGER test_account_updates AFTER UPDATE ON virtual_accounts FOR EACH ROW EXECUTE FUNCTION test_record_update();
`;

async function updatesOf(db: Database, id: string): Promise<string[]> {
  const { rows } = await db.query<{ old_status: string; new_status: string }>(
    "SELECT old_status, new_status FROM test_row_updates WHERE id = $1 ORDER BY seq",
    [id],
  );
  return rows.map((r) => `${r.old_status}->${r.new_status}`);
}

interface JobOf {
  queue: string;
  /** The field of the job's data naming the row, and the row's id. */
  field: string;
  id: string;
}

/** The one job of `of` a worker runs now. */
async function activeJob(db: Database, of: JobOf): Promise<string> {
  const { rows } = await db.query<{ id: string }>(
    "SELECT id FROM pgboss.job WHERE name = $1 AND data->>$2 = $3 AND state = 'active'",
    [of.queue, of.field, of.id],
  );
  expect(rows).toHaveLength(1);
  return rows[0]?.id ?? "";
}

async function jobById(db: Database, id: string) {
  const { rows } = await db.query<{ state: string; retry_count: number; started_on: Date | null }>(
    "SELECT state, retry_count, started_on FROM pgboss.job WHERE id = $1",
    [id],
  );
  return rows[0];
}

/**
 * Backends of this database waiting for a row: the worker's statement stuck mid-job behind the row
 * this test holds (or behind another backend queued on that row, as PostgreSQL queues them). Not
 * advisory locks: pg-boss's supervisors take those and may wait for each other a moment.
 */
async function waitingForLocks(db: Database): Promise<number> {
  const { rows } = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM pg_stat_activity
      WHERE datname = current_database() AND wait_event IN ('transactionid', 'tuple')`,
  );
  return rows[0]?.n ?? 0;
}

/**
 * A worker process killed with `kill -9` in the middle of a job: the job comes back to another
 * worker process within the heartbeat bound and has its effect once. A job is held mid-job by a row
 * lock this test takes on the row the job is about to change (no hook in the service): the worker's
 * statement waits on it, the worker is killed, and the lock is let go once the job is back.
 */
describe.skipIf(!process.env.DATABASE_URL)(`worker failover ${POSTGRES_ONLY}`, () => {
  const dir = useTempDir("mpworkers-");
  let database: TestDatabase;
  let env: Record<string, string>;
  let api: Awaited<ReturnType<typeof startService>> | undefined;
  const workers: ChildProcess[] = [];
  let apiKey: string;

  const startWorker = async () => {
    const worker = await startRole(["--role", "worker"], env, /workers ready/);
    workers.push(worker.child);
    return worker.child;
  };
  const post = async (path: string, json: unknown, idempotencyKey: string) => {
    const response = await fetch(`${api?.url}${path}`, {
      method: "POST",
      headers: { "x-service-api-key": apiKey, "content-type": "application/json", "x-idempotency-key": idempotencyKey },
      body: JSON.stringify(json),
    });
    // biome-ignore lint/suspicious/noExplicitAny: answers are checked field by field
    return { status: response.status, body: (await response.json()) as any };
  };
  /** POSTs a creation and expects it answered `status`: the created resource's id. */
  const created = async (path: string, json: unknown, idempotencyKey: string, status: 201 | 202): Promise<string> => {
    const answer = await post(path, json, idempotencyKey);
    expect(answer.status).toBe(status);
    return answer.body.data.id;
  };
  /**
   * Holds `FOR UPDATE` on the row the job is about to change, gets the worker that will run it
   * (`stuckWorker`, by default the one running), waits until its statement is stuck on the row,
   * starts another worker and kills the stuck one (`kill -9`), then lets the row go once the job was
   * claimed again (after `beforeRelease`). The job must be claimed again within the bound; the time
   * is printed. Answers the job's id.
   */
  const killMidJob = async (options: {
    table: "customers" | "virtual_accounts";
    id: string;
    job: JobOf;
    stuckWorker?: () => Promise<ChildProcess>;
    beforeRelease?: () => Promise<void>;
  }): Promise<string> => {
    const holder = await database.db.pool.connect();
    try {
      await holder.query("BEGIN");
      await holder.query(`SELECT 1 FROM ${options.table} WHERE id = $1 FOR UPDATE`, [options.id]);
      const stuck = await (options.stuckWorker ?? runningWorker)();
      await eventually(async () => ((await waitingForLocks(database.db)) >= 1 ? true : undefined), 60_000);
      const stuckJob = await activeJob(database.db, options.job);

      await startWorker();
      killHard(stuck);
      const killedAt = Date.now();
      await waitForExit(stuck);
      const again = await eventually(async () => {
        const current = await jobById(database.db, stuckJob);
        return current && current.retry_count >= 1 && current.state !== "retry" && current.started_on
          ? current
          : undefined;
      }, REDELIVERY_LIMIT_MS + 30_000);
      // By the database's clock for the claim; both clocks are this machine's.
      const redeliveredMs = (again.started_on?.getTime() ?? 0) - killedAt;
      process.stderr.write(`${options.job.queue} job redelivered ${redeliveredMs} ms after kill -9\n`);
      expect(redeliveredMs).toBeLessThan(REDELIVERY_LIMIT_MS);
      await options.beforeRelease?.();
      return stuckJob;
    } finally {
      await holder.query("ROLLBACK");
      holder.release();
    }
  };
  const runningWorker = async (): Promise<ChildProcess> => {
    const running = workers.at(-1);
    if (!running) throw new Error("no worker runs");
    return running;
  };
  const statusBecomes = (table: "verification_submissions" | "virtual_accounts", id: string, status: string) =>
    eventually(async () => {
      const { rows } = await database.db.query<{ status: string }>(`SELECT status FROM ${table} WHERE id = $1`, [id]);
      return rows[0]?.status === status ? true : undefined;
    }, 60_000);

  beforeAll(async () => {
    database = await createTestDatabase();
    await database.db.query(OBSERVE_UPDATES);
    env = sharedProcessEnv(database, dir);
    api = await startService(["--role", "api"], env);
    apiKey = (await createMerchant(database.db, { name: "Workers", environment: "sandbox" })).key.apiKey;
  }, TIMEOUT_MS);
  afterAll(async () => {
    await Promise.all([api?.child, ...workers].map((child) => stopProcess(child)));
    await database?.drop();
  });

  let customerId: string;
  /** Submits a verification attempt of the customer: its id. */
  const submitted = (payload: unknown, idempotencyKey: string) =>
    created(`/v1/customers/${customerId}/verification-submissions`, payload, idempotencyKey, 202);

  it(
    "provisioning a customer: the killed worker's statement and the retry elsewhere change the customer once",
    async () => {
      // No worker runs yet: the job waits in the queue while this test takes the customer's row.
      customerId = await created(
        "/v1/customers",
        { type: "INDIVIDUAL", first_name: "Ada", last_name: "Lovelace" },
        "c-1",
        202,
      );
      const jobId = await killMidJob({
        table: "customers",
        id: customerId,
        job: { queue: "customer.provision", field: "customerId", id: customerId },
        stuckWorker: startWorker,
        // The killed worker's UPDATE is still queued on the row (with client_connection_check_interval
        // 0, PostgreSQL's default, a backend waiting for a lock does not notice its client is gone), and
        // so is the retry's: the first commits, the second must find nothing to do.
        beforeRelease: async () => {
          const interval = await database.db.query<{ v: string }>(
            "SELECT current_setting('client_connection_check_interval') AS v",
          );
          const waiting = interval.rows[0]?.v === "0" ? 2 : 1;
          await eventually(async () => ((await waitingForLocks(database.db)) >= waiting ? true : undefined), 30_000);
        },
      });
      await eventually(async () => ((await jobById(database.db, jobId))?.state === "completed" ? true : undefined));
      expect(await updatesOf(database.db, customerId)).toEqual(["PROVISIONING->NOT_STARTED"]);
    },
    TIMEOUT_MS,
  );

  it(
    "deciding a KYC review: the check job of a killed worker is decided once by another worker",
    async () => {
      const submissionId = await submitted(individualTier1(), "v-1");
      const before = await updatesOf(database.db, customerId);
      // The check job locks the customer first (the submission's own job does not touch that row):
      // held from now, the decision waits for it.
      await killMidJob({
        table: "customers",
        id: customerId,
        job: { queue: "verification.check-review", field: "submissionId", id: submissionId },
      });
      await statusBecomes("verification_submissions", submissionId, "APPROVED");
      // One decision: the attempt moved once to PENDING and once to APPROVED, and the customer's state
      // was derived from it once (the killed worker's transaction never committed).
      expect(await updatesOf(database.db, submissionId)).toEqual(["SUBMITTED->PENDING", "PENDING->APPROVED"]);
      const customerUpdates = (await updatesOf(database.db, customerId)).slice(before.length);
      expect(customerUpdates).toHaveLength(1);
      // The chain of checks did not fork: one job per check number.
      const { rows } = await database.db.query<{ forks: number }>(
        `SELECT count(*)::int AS forks FROM (SELECT data->>'check' FROM pgboss.job
          WHERE name = 'verification.check-review' AND data->>'submissionId' = $1
          GROUP BY data->>'check' HAVING count(*) > 1) AS forked`,
        [submissionId],
      );
      expect(rows[0]?.forks).toBe(0);
    },
    TIMEOUT_MS,
  );

  it(
    "activating a virtual account: the killed worker's check is redone elsewhere and activates it once",
    async () => {
      const tier2 = await submitted(individualTier2(), "v-2");
      await statusBecomes("verification_submissions", tier2, "APPROVED");
      const accountId = await created(
        "/v1/virtual-accounts",
        { customer_id: customerId, currency: "USD" },
        "va-1",
        201,
      );
      // Its first check is due seconds after the answer (the sandbox bank's delay): held from now,
      // whatever the check then writes (the next check, or the outcome) waits for the row.
      await killMidJob({
        table: "virtual_accounts",
        id: accountId,
        job: { queue: "virtual-account.check-activation", field: "virtualAccountId", id: accountId },
      });
      await statusBecomes("virtual_accounts", accountId, "ACTIVE");
      expect(await updatesOf(database.db, accountId)).toEqual(["PROVISIONING->ACTIVE"]);
    },
    TIMEOUT_MS,
  );
  it(
    "a worker cut off from PostgreSQL for longer than the heartbeat recovers by itself: queued jobs then run once",
    async () => {
      const proxy = await startTcpProxy(connectionTarget(database.connectionString));
      const customer = (key: string) =>
        created("/v1/customers", { type: "INDIVIDUAL", first_name: "Cut", last_name: "Off" }, key, 202);
      const provisioned = (id: string) =>
        eventually(async () => {
          const { rows } = await database.db.query<{ status: string }>("SELECT status FROM customers WHERE id = $1", [
            id,
          ]);
          return rows[0]?.status === "NOT_STARTED" ? true : undefined;
        }, 60_000);
      try {
        // Alone: the workers of the earlier tests stop first.
        await Promise.all(workers.splice(0).map((child) => stopProcess(child)));
        const worker = await startRole(
          ["--role", "worker"],
          { ...env, DATABASE_URL: viaProxy(database.connectionString, proxy.port) },
          /workers ready/,
        );
        workers.push(worker.child);
        await provisioned(await customer("cut-before"));

        await proxy.down();
        const during = await customer("cut-during");
        await new Promise((resolve) => setTimeout(resolve, (DEFAULT_JOB_HEARTBEAT_SECONDS + 5) * 1000));
        await proxy.up();

        await provisioned(during);
        await provisioned(await customer("cut-after"));
        expect(worker.child.exitCode).toBeNull();
        expect(await updatesOf(database.db, during)).toEqual(["PROVISIONING->NOT_STARTED"]);
      } finally {
        await proxy.close();
      }
    },
    TIMEOUT_MS,
  );
});
