import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes, randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { Agent, request } from "node:http";
import { createMerchant } from "@mp/api";
import { silentLogger } from "@mp/core";
import type { Database } from "@mp/db";
import { createTestDatabase } from "@mp/db/testing";
import { createEncryptionKeyring } from "@mp/encryption";
import { startWebhookWorker } from "@mp/webhooks";
import { printTable } from "./measure.ts";
import { addEndpoint, backlog } from "./webhooks.ts";

/**
 * CPU per delivery of a backlog drain, against CPU per request of raw POSTs to the same receiver:
 * on a shared machine the rates swing with the neighbours' load run to run, the CPU each costs much
 * less. The receiver is a process of its own (its CPU read from /proc), the worker runs in this one
 * (process.cpuUsage: nothing else runs here meanwhile), and PostgreSQL's share is the CPU of the
 * test database's backends (/proc of their pids: the server must be on this machine).
 */
const RECEIVER = `
const http = require("node:http");
let count = 0;
const server = http.createServer((req, res) => {
  req.on("data", () => {});
  req.on("end", () => { count++; res.end("ok"); });
});
server.keepAliveTimeout = 60000;
server.listen(0, "127.0.0.1", () => process.stdout.write(JSON.stringify({ port: server.address().port }) + "\\n"));
process.on("message", () => process.send(count));
`;

interface Receiver {
  url: string;
  pid: number;
  count(): Promise<number>;
  stop(): void;
}

async function startReceiverProcess(): Promise<Receiver> {
  const child: ChildProcess = spawn(process.execPath, ["-e", RECEIVER], {
    stdio: ["ignore", "pipe", "inherit", "ipc"],
  });
  const port = await new Promise<number>((resolve) =>
    child.stdout?.once("data", (chunk: Buffer) => resolve((JSON.parse(chunk.toString()) as { port: number }).port)),
  );
  return {
    url: `http://127.0.0.1:${port}`,
    pid: child.pid ?? 0,
    count: () =>
      new Promise((resolve) => {
        child.once("message", (m) => resolve(m as number));
        child.send("count");
      }),
    stop: () => child.kill("SIGKILL"),
  };
}

const TICK_US = 10_000; // USER_HZ = 100 on Linux

/** utime + stime of a process in microseconds (0 when it is gone). */
function processCpuUs(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) * TICK_US;
  } catch {
    return 0;
  }
}

/** The CPU of the test database's backends so far, per pid. */
async function backendsCpu(db: Database): Promise<Map<number, number>> {
  const { rows } = await db.query<{ pid: number }>(
    "SELECT pid FROM pg_stat_activity WHERE datname = current_database()",
  );
  return new Map(rows.map((r) => [r.pid, processCpuUs(r.pid)]));
}

function backendsDelta(before: Map<number, number>, after: Map<number, number>): number {
  let sum = 0;
  for (const [pid, us] of after) sum += us - (before.get(pid) ?? 0);
  return sum;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface WebhooksCpuFigures {
  deliveries: number;
  perSecond: number;
  workerUs: number;
  receiverUs: number;
  databaseUs: number;
  rawPerSecond: number;
  rawClientUs: number;
  rawReceiverUs: number;
}

/** Raw POSTs of a webhook's size at 16 connections (an endpoint's sending cap) for `count` requests. */
async function rawPosts(receiver: Receiver, count: number) {
  const body = JSON.stringify({ id: randomUUID(), type: "deposit.confirmed", data: { amount: "12.5" } }).padEnd(420);
  const agent = new Agent({ keepAlive: true, maxSockets: 16 });
  let left = count;
  const cpu = process.cpuUsage();
  const receiverBefore = processCpuUs(receiver.pid);
  const started = performance.now();
  const loop = async () => {
    while (left-- > 0) {
      await new Promise<void>((resolve, reject) => {
        const req = request(`${receiver.url}/raw`, {
          method: "POST",
          agent,
          headers: { "content-type": "application/json" },
        });
        req.on("response", (res) => {
          res.resume();
          res.on("end", () => resolve());
        });
        req.on("error", reject);
        req.end(body);
      });
    }
  };
  await Promise.all(Array.from({ length: 16 }, loop));
  const seconds = (performance.now() - started) / 1000;
  const used = process.cpuUsage(cpu);
  agent.destroy();
  return {
    perSecond: count / seconds,
    clientUs: (used.user + used.system) / count,
    receiverUs: (processCpuUs(receiver.pid) - receiverBefore) / count,
  };
}

/** `pnpm bench webhooks-cpu [--deliveries N]`: a warm-up drain, then one measured drain and raw POSTs. */
export async function runWebhooksCpuBench(options: { deliveries?: number } = {}): Promise<WebhooksCpuFigures> {
  const deliveries = options.deliveries ?? 20_000;
  const testDb = await createTestDatabase({ poolSize: 20 });
  const db = testDb.db;
  const keyring = createEncryptionKeyring({ current: randomBytes(32) });
  const receiver = await startReceiverProcess();
  try {
    const { merchantId } = await createMerchant(db, {
      name: `cpu-${randomUUID().slice(0, 6)}`,
      environment: "sandbox",
    });
    await addEndpoint(db, keyring, merchantId, `${receiver.url}/a`);
    const drain = async (count: number) => {
      const target = (await receiver.count()) + count;
      await backlog(db, merchantId, count);
      const backends = await backendsCpu(db);
      const cpu = process.cpuUsage();
      const receiverBefore = processCpuUs(receiver.pid);
      const started = performance.now();
      const worker = await startWebhookWorker({ db, keyring, logger: silentLogger(), environment: "sandbox" });
      while ((await receiver.count()) < target) await sleep(20);
      // Its last results written too (they are the drain's statements as much as the claims).
      await worker.stop();
      const seconds = (performance.now() - started) / 1000;
      const used = process.cpuUsage(cpu);
      return {
        perSecond: count / seconds,
        workerUs: (used.user + used.system) / count,
        receiverUs: (processCpuUs(receiver.pid) - receiverBefore) / count,
        databaseUs: backendsDelta(backends, await backendsCpu(db)) / count,
      };
    };
    await drain(Math.min(5_000, deliveries));
    const measured = await drain(deliveries);
    const raw = await rawPosts(receiver, deliveries);
    const figures: WebhooksCpuFigures = {
      deliveries,
      perSecond: measured.perSecond,
      workerUs: measured.workerUs,
      receiverUs: measured.receiverUs,
      databaseUs: measured.databaseUs,
      rawPerSecond: raw.perSecond,
      rawClientUs: raw.clientUs,
      rawReceiverUs: raw.receiverUs,
    };
    const drainUs = figures.workerUs + figures.receiverUs + figures.databaseUs;
    const rawUs = figures.rawClientUs + figures.rawReceiverUs;
    printTable(`Webhook drain CPU per delivery (${deliveries} deliveries, one endpoint, receiver in its own process)`, [
      {
        "drain/s": Math.round(figures.perSecond),
        "worker us": Math.round(figures.workerUs),
        "database us": Math.round(figures.databaseUs),
        "receiver us": Math.round(figures.receiverUs),
        "raw/s": Math.round(figures.rawPerSecond),
        "raw client us": Math.round(figures.rawClientUs),
        "raw receiver us": Math.round(figures.rawReceiverUs),
        "raw CPU / drain CPU": Number((rawUs / drainUs).toFixed(2)),
      },
    ]);
    return figures;
  } finally {
    receiver.stop();
    await testDb.drop();
  }
}
