import { randomBytes, randomUUID } from "node:crypto";
import { Agent, request } from "node:http";
import { Worker } from "node:worker_threads";
import { createMerchant } from "@mp/api";
import { silentLogger } from "@mp/core";
import type { Database } from "@mp/db";
import { createTestDatabase } from "@mp/db/testing";
import { createEncryptionKeyring, type EncryptionKeyring } from "@mp/encryption";
import { appendEvent } from "@mp/events";
import { issueSigningSecret, startWebhookWorker, type WebhookWorker } from "@mp/webhooks";
import { printTable } from "./measure.ts";

/**
 * The receiver runs in a worker thread (plain JS, no loader needed), so its work does not share the
 * event loop of the worker it measures. It counts requests per path, notes when each webhook-id
 * arrived (ms since the epoch, sub-ms: the same clock as the main thread's), and answers at once,
 * or after `hangMs` for the paths listed there.
 */
const RECEIVER = `
const { parentPort, workerData } = require("node:worker_threads");
const http = require("node:http");
let counts = {};
let arrivals = [];
let held = [];
const server = http.createServer((req, res) => {
  req.on("data", () => {});
  req.on("end", () => {
    const at = performance.timeOrigin + performance.now();
    counts[req.url] = (counts[req.url] || 0) + 1;
    arrivals.push([req.headers["webhook-id"], at]);
    const hang = workerData.hangMs[req.url];
    if (!hang) return res.end("ok");
    const timer = setTimeout(() => res.end("late"), hang);
    held.push({ res, timer });
  });
});
server.keepAliveTimeout = 60000;
server.listen(0, "127.0.0.1", () => parentPort.postMessage({ port: server.address().port }));
parentPort.on("message", (m) => {
  if (m === "stats") {
    parentPort.postMessage({ counts, arrivals });
    arrivals = [];
  } else if (m === "release") {
    for (const h of held) { clearTimeout(h.timer); h.res.end("released"); }
    held = [];
  }
});
`;

interface ReceiverThread {
  url: string;
  stats(): Promise<{ counts: Record<string, number>; arrivals: Array<[string, number]> }>;
  release(): void;
  stop(): Promise<number>;
}

async function startReceiverThread(hangMs: Record<string, number>): Promise<ReceiverThread> {
  const thread = new Worker(RECEIVER, { eval: true, workerData: { hangMs } });
  const port = await new Promise<number>((resolve) => thread.once("message", (m: { port: number }) => resolve(m.port)));
  return {
    url: `http://127.0.0.1:${port}`,
    stats: () =>
      new Promise((resolve) => {
        thread.once("message", resolve);
        thread.postMessage("stats");
      }),
    release: () => thread.postMessage("release"),
    stop: () => thread.terminate(),
  };
}

const now = () => performance.timeOrigin + performance.now();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function addEndpoint(
  db: Database,
  keyring: EncryptionKeyring,
  merchantId: string,
  url: string,
): Promise<void> {
  await db.tx(async (c) => {
    const id = randomUUID();
    await c.query("INSERT INTO webhook_endpoints (id, merchant_id, url, enabled_events) VALUES ($1, $2, $3, $4)", [
      id,
      merchantId,
      url,
      ["*"],
    ]);
    await issueSigningSecret(c, keyring, id, { rotate: false });
  });
}

/** A backlog of `count` events (the fan-out trigger makes their deliveries), in transactions of 5,000. */
export async function backlog(db: Database, merchantId: string, count: number): Promise<void> {
  for (let done = 0; done < count; done += 5_000) {
    await db.query(
      `INSERT INTO events (id, merchant_id, environment, type, object_type, object_id, object_version, data)
       SELECT gen_random_uuid(), $1, 'sandbox', 'deposit.confirmed', 'deposit', gen_random_uuid()::text, 1,
              jsonb_build_object('id', gen_random_uuid(), 'status', 'CONFIRMED', 'amount', '12.500000', 'n', n)
         FROM generate_series(1, $2) n`,
      [merchantId, Math.min(5_000, count - done)],
    );
  }
  // As autovacuum would soon after such a burst: plans for the claim from real statistics.
  await db.query("ANALYZE webhook_deliveries");
  await db.query("ANALYZE events");
}

/** Waits until `path` has received `target` requests; deliveries/s between the first and the last second. */
async function drainRate(receiver: ReceiverThread, path: string, target: number, limitMs: number) {
  const started = now();
  let firstAt = 0;
  let firstCount = 0;
  let firstFive: number | undefined;
  for (;;) {
    await sleep(250);
    const count = (await receiver.stats()).counts[path] ?? 0;
    if (count > 0 && firstAt === 0) {
      firstAt = now();
      firstCount = count;
    }
    if (firstAt > 0 && firstFive === undefined && now() - firstAt >= 5_000) {
      firstFive = (count - firstCount) / ((now() - firstAt) / 1000);
    }
    if (count >= target || now() - started > limitMs) {
      const seconds = (now() - firstAt) / 1000;
      const perSecond = (count - firstCount) / seconds;
      return { delivered: count, seconds, perSecond, firstFive: firstFive ?? perSecond };
    }
  }
}

/** Raw POSTs of the same size to the receiver, without our worker: the ceiling of this machine. */
async function rawPostRate(url: string, concurrency: number, seconds: number, body: string): Promise<number> {
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
  const until = now() + seconds * 1000;
  let done = 0;
  const loop = async () => {
    while (now() < until) {
      await new Promise<void>((resolve, reject) => {
        const req = request(`${url}/raw`, { method: "POST", agent, headers: { "content-type": "application/json" } });
        req.on("response", (res) => {
          res.resume();
          res.on("end", () => resolve());
        });
        req.on("error", reject);
        req.end(body);
      });
      done++;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, loop));
  agent.destroy();
  return done / seconds;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

/**
 * `pnpm bench webhooks` (set DATABASE_URL for the real PostgreSQL server). Targets (issue 13):
 * >= 1,000 deliveries/s sustained to a local receiver; p99 commit -> receiver < 1 s at 100 events/s;
 * an endpoint hanging 15 s per request lowers another's throughput by < 10%.
 */
export async function runWebhooksBench(options: { seconds?: number } = {}): Promise<void> {
  const seconds = options.seconds ?? 10;
  const testDb = await createTestDatabase({ poolSize: 20 });
  const db = testDb.db;
  const keyring = createEncryptionKeyring({ current: randomBytes(32) });
  const receiver = await startReceiverThread({ "/hang": 15_000 });
  let worker: WebhookWorker | undefined;
  const startWorker = async () =>
    (worker = await startWebhookWorker({ db, keyring, logger: silentLogger(), environment: "sandbox" }));
  const merchant = async (url: string) => {
    const { merchantId } = await createMerchant(db, {
      name: `bench-${randomUUID().slice(0, 6)}`,
      environment: "sandbox",
    });
    await addEndpoint(db, keyring, merchantId, url);
    return merchantId;
  };
  const database = process.env.DATABASE_URL ? "PostgreSQL server" : "embedded PGlite";
  try {
    // 1. Baseline: the same receiver, raw POSTs of a webhook's size.
    const sampleBody = JSON.stringify({
      id: randomUUID(),
      type: "deposit.confirmed",
      data: { amount: "12.500000" },
    }).padEnd(420);
    await rawPostRate(receiver.url, 8, 1, sampleBody);
    const raw8 = await rawPostRate(receiver.url, 8, 5, sampleBody);
    const raw64 = await rawPostRate(receiver.url, 64, 5, sampleBody);

    // 2. Sustained throughput: a backlog drained by one worker (one endpoint: its 16 in flight, up to 128 claimed ahead).
    const backlogSize = Math.max(20_000, seconds * 2_500);
    const m1 = await merchant(`${receiver.url}/a`);
    await backlog(db, m1, backlogSize);
    await startWorker();
    const sustained = await drainRate(receiver, "/a", backlogSize, 120_000);
    // 3. Latency at 100 events/s, each appended by appendEvent in its own transaction.
    const m2 = await merchant(`${receiver.url}/b`);
    await receiver.stats(); // drop earlier arrivals
    const committed = new Map<string, number>();
    const producerUntil = now() + seconds * 1000;
    let next = now();
    const inFlight: Array<Promise<void>> = [];
    while (now() < producerUntil) {
      next += 10;
      inFlight.push(
        db
          .tx((c) =>
            appendEvent(c, {
              merchantId: m2,
              type: "deposit.confirmed",
              objectType: "deposit",
              objectId: randomUUID(),
              data: { status: "CONFIRMED", amount: "12.500000" },
            }),
          )
          .then(({ id }) => {
            committed.set(id, now());
          }),
      );
      const wait = next - now();
      if (wait > 0) await sleep(wait);
    }
    await Promise.all(inFlight);
    await sleep(2_000);
    const latencies: number[] = [];
    for (const [id, at] of (await receiver.stats()).arrivals) {
      const commit = committed.get(id);
      if (commit !== undefined) latencies.push(at - commit);
    }
    latencies.sort((a, b) => a - b);
    await worker?.stop();

    // 4. Isolation: a healthy endpoint's drain alone, then beside one that hangs 15 s on every request;
    // alternated twice, as the machine's other load moves either figure by more than the effect sought.
    const isolationSize = Math.max(10_000, seconds * 1_500);
    const alone: number[] = [];
    const beside: number[] = [];
    let hung = 0;
    for (let round = 0; round < 2; round++) {
      const path = `/alone${round}`;
      await backlog(db, await merchant(`${receiver.url}${path}`), isolationSize);
      await startWorker();
      alone.push((await drainRate(receiver, path, isolationSize, 120_000)).perSecond);
      await worker?.stop();
      const besidePath = `/beside${round}`;
      const m4 = await merchant(`${receiver.url}${besidePath}`);
      await addEndpoint(db, keyring, m4, `${receiver.url}/hang`);
      await backlog(db, m4, isolationSize);
      await startWorker();
      beside.push((await drainRate(receiver, besidePath, isolationSize, 120_000)).perSecond);
      hung += (await receiver.stats()).counts["/hang"] ?? 0;
      // The hanging endpoint is done with: its rest must not run into the next round.
      await db.query(
        `WITH off AS (UPDATE webhook_endpoints SET status = 'disabled', disabled_reason = 'manual' WHERE url LIKE '%/hang' RETURNING id)
         UPDATE webhook_deliveries SET status = 'canceled' WHERE endpoint_id IN (SELECT id FROM off) AND status = 'pending'`,
      );
      receiver.release();
      await worker?.stop();
    }
    worker = undefined;
    const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;
    const aloneRate = mean(alone);
    const besideRate = mean(beside);

    printTable(`Webhook delivery (database: ${database}; receiver in a worker thread on 127.0.0.1)`, [
      { measure: "baseline: raw HTTP POST, 8 connections", value: `${Math.round(raw8)} req/s` },
      { measure: "baseline: raw HTTP POST, 64 connections", value: `${Math.round(raw64)} req/s` },
      {
        measure: `sustained: backlog of ${backlogSize} drained to one endpoint`,
        value: `${Math.round(sustained.perSecond)} deliveries/s (${sustained.delivered} in ${sustained.seconds.toFixed(1)} s; first 5 s: ${Math.round(sustained.firstFive)}/s)`,
      },
      {
        measure: `commit -> receiver at 100 events/s (${latencies.length} events)`,
        value: `p50 ${percentile(latencies, 50).toFixed(1)} ms, p99 ${percentile(latencies, 99).toFixed(1)} ms, max ${(latencies.at(-1) ?? Number.NaN).toFixed(1)} ms`,
      },
      {
        measure: `isolation: ${isolationSize} to a healthy endpoint alone (2 rounds)`,
        value: `${alone.map(Math.round).join(", ")} deliveries/s`,
      },
      {
        measure: "isolation: the same beside an endpoint hanging 15 s per request",
        value: `${beside.map(Math.round).join(", ")} deliveries/s (${hung} requests hung meanwhile)`,
      },
    ]);
    process.stdout.write(
      `targets: >= 1000 deliveries/s sustained (${Math.round(sustained.perSecond)}, ${(sustained.perSecond / raw8).toFixed(2)}x raw POST at 8 connections); ` +
        `p99 < 1000 ms at 100 events/s (${percentile(latencies, 99).toFixed(1)} ms); ` +
        `hanging neighbour costs < 10% (${((1 - besideRate / aloneRate) * 100).toFixed(1)}%, means of the rounds)\n`,
    );
  } finally {
    receiver.release();
    await worker?.stop();
    await receiver.stop();
    await testDb.drop();
  }
}
