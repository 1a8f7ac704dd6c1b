import { createMerchant } from "@mp/api";
import { createTestDatabase, type TestDatabase } from "@mp/db/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startRole, startService } from "../cli/run-cli.ts";
import { eventually } from "../support/api-harness.ts";
import { useTempDir } from "../support/test-database.ts";
import { POSTGRES_ONLY, sharedProcessEnv, stopProcess } from "./several-processes.ts";

/** Two processes start through tsx: seconds alone, longer on a loaded machine. */
const TIMEOUT_MS = 180_000;
const LIMIT = 20;

interface Answer {
  status: number;
  text: string;
  replayed: boolean;
  // biome-ignore lint/suspicious/noExplicitAny: answers are checked field by field
  body: any;
}

async function call(
  url: string,
  apiKey: string,
  path: string,
  init: { json?: unknown; idempotencyKey?: string } = {},
): Promise<Answer> {
  const headers: Record<string, string> = { "x-service-api-key": apiKey };
  if (init.json !== undefined) headers["content-type"] = "application/json";
  if (init.idempotencyKey) headers["x-idempotency-key"] = init.idempotencyKey;
  const response = await fetch(`${url}${path}`, {
    method: init.json === undefined ? "GET" : "POST",
    headers,
    body: init.json === undefined ? null : JSON.stringify(init.json),
  });
  const text = await response.text();
  return {
    status: response.status,
    text,
    replayed: response.headers.get("idempotent-replayed") === "true",
    body: JSON.parse(text),
  };
}

/**
 * Two `payments serve --role api` processes on one PostgreSQL behind an imaginary load balancer:
 * nothing a request needs lives in one process's memory (idempotency is decided by the database),
 * and the per-key rate limit is a per-process budget, as docs/several-machines.md says.
 */
describe.skipIf(!process.env.DATABASE_URL)(`stateless API replicas ${POSTGRES_ONLY}`, () => {
  const dir = useTempDir("mpreplicas-");
  let database: TestDatabase;
  let replicas: Array<Awaited<ReturnType<typeof startService>>> = [];
  let signer: Awaited<ReturnType<typeof startRole>> | undefined;
  beforeAll(async () => {
    database = await createTestDatabase();
    const env = { ...sharedProcessEnv(database, dir), RATE_LIMIT_PER_MINUTE: String(LIMIT) };
    // As deployed: the replicas hold no mnemonic; the signer derives the receive-address pools they read.
    signer = await startRole(["--role", "signer"], env, /signer started/);
    replicas = await Promise.all([startService(["--role", "api"], env), startService(["--role", "api"], env)]);
  }, TIMEOUT_MS);
  afterAll(async () => {
    await Promise.all([...replicas.map((replica) => stopProcess(replica.child)), stopProcess(signer?.child)]);
    await database?.drop();
  });

  const merchantKey = async (): Promise<{ merchantId: string; apiKey: string }> => {
    const created = await createMerchant(database.db, { name: "Replicas", environment: "sandbox" });
    return { merchantId: created.merchantId, apiKey: created.key.apiKey };
  };
  const urls = () => replicas.map((replica) => replica.url);
  /** The `n` a `SELECT count(*)::int AS n` answers. */
  const count = async (query: string, params: unknown[]) =>
    (await database.db.query<{ n: number }>(query, params)).rows[0]?.n;
  /** Every duplicate got the same answer, with `status`. */
  const expectOneAnswer = (answers: Answer[], status: number) => {
    expect(answers.map((a) => a.status)).toEqual(Array(answers.length).fill(status));
    expect(new Set(answers.map((a) => a.text)).size).toBe(1);
  };
  /** The same key with another body is 409 idempotency_conflict on either process. */
  const expectConflictOnEach = async (path: string, apiKey: string, json: unknown, idempotencyKey: string) => {
    for (const url of urls()) {
      const other = await call(url, apiKey, path, { json, idempotencyKey });
      expect(other.status).toBe(409);
      expect(other.body.error.code).toBe("idempotency_conflict");
    }
  };

  it(
    "ten concurrent duplicate POSTs spread over both processes create one customer; every answer has the same body",
    async () => {
      const { merchantId, apiKey } = await merchantKey();
      const body = { type: "INDIVIDUAL", first_name: "Ada", last_name: "Lovelace", email: "ada@example.com" };
      // The key's row is held by this test's open transaction, so the duplicates of both processes
      // reach the database and wait there together; then it is let go and they race for it.
      const barrier = await database.db.pool.connect();
      let answers: Answer[];
      try {
        await barrier.query("BEGIN");
        await barrier.query(
          `INSERT INTO idempotency_keys (merchant_id, key, request_hash, method, path, response_status, response_body)
           VALUES ($1, 'dup-customer', 'held by the test', 'POST', '/v1/customers', 0, '')`,
          [merchantId],
        );
        const barrierPid = (await barrier.query<{ pid: number }>("SELECT pg_backend_pid() AS pid")).rows[0]?.pid;
        const sent = Array.from({ length: 10 }, (_, i) =>
          call(urls()[i % 2] ?? "", apiKey, "/v1/customers", { json: body, idempotencyKey: "dup-customer" }),
        );
        // One waiting claim per process (a process queues its own duplicates behind the first).
        await eventually(async () => {
          const { rows } = await database.db.query<{ waiting: number }>(
            "SELECT count(*)::int AS waiting FROM pg_stat_activity WHERE $1 = ANY(pg_blocking_pids(pid))",
            [barrierPid],
          );
          return (rows[0]?.waiting ?? 0) >= 2 ? true : undefined;
        }, 30_000);
        await barrier.query("ROLLBACK");
        answers = await Promise.all(sent);
      } finally {
        barrier.release();
      }

      expectOneAnswer(answers, 202);
      expect(answers.filter((a) => !a.replayed)).toHaveLength(1);
      const customers = await database.db.query<{ id: string }>("SELECT id FROM customers WHERE merchant_id = $1", [
        merchantId,
      ]);
      expect(customers.rows.map((r) => r.id)).toEqual([answers[0]?.body.data.id]);
      // Its provisioning job was enqueued once, with the one request that created it.
      const jobs = await count(
        "SELECT count(*)::int AS n FROM pgboss.job WHERE name = 'customer.provision' AND data->>'customerId' = $1",
        [answers[0]?.body.data.id],
      );
      expect(jobs).toBe(1);

      await expectConflictOnEach("/v1/customers", apiKey, { ...body, first_name: "Grace" }, "dup-customer");
    },
    TIMEOUT_MS,
  );

  it(
    "ten concurrent duplicate wallet creations over both processes make one wallet, the same answer everywhere",
    async () => {
      const { merchantId, apiKey } = await merchantKey();
      const customer = await call(urls()[0] ?? "", apiKey, "/v1/customers", {
        json: { type: "INDIVIDUAL", first_name: "Ada", last_name: "Lovelace" },
        idempotencyKey: "c-1",
      });
      expect(customer.status).toBe(202);
      const request = { customer_id: customer.body.data.id, label: "main" };
      const answers = await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          call(urls()[i % 2] ?? "", apiKey, "/v1/wallets", { json: request, idempotencyKey: "dup-wallet" }),
        ),
      );
      expectOneAnswer(answers, 201);
      expect(await count("SELECT count(*)::int AS n FROM wallets WHERE merchant_id = $1", [merchantId])).toBe(1);
      await expectConflictOnEach("/v1/wallets", apiKey, { ...request, label: "other" }, "dup-wallet");
    },
    TIMEOUT_MS,
  );

  it(
    "counts the per-key rate limit per process: a key refused by one replica is still served by the other",
    async () => {
      const { apiKey } = await merchantKey();
      const [first = "", second = ""] = urls();
      // Until the first process refuses (a window that rolls over meanwhile only takes longer).
      let refused: Answer | undefined;
      for (let i = 0; i < 3 * LIMIT && !refused; i++) {
        const answer = await call(first, apiKey, "/v1/customers");
        if (answer.status === 429) refused = answer;
        else expect(answer.status).toBe(200);
      }
      expect(refused?.body.error).toBe("rate_limited");
      // The other process has its own budget for the same key: with N replicas a key gets N x LIMIT.
      const other = await fetch(`${second}/v1/customers`, { headers: { "x-service-api-key": apiKey } });
      expect(other.status).toBe(200);
      expect(other.headers.get("ratelimit")).toMatch(new RegExp(`^"per-key";r=${LIMIT - 1};`));
    },
    TIMEOUT_MS,
  );
});
