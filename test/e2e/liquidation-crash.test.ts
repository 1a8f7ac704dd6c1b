import type { ChildProcess } from "node:child_process";
import { ANVIL_ACCOUNTS, tokenBalance, transferToken } from "@mp/test-nodes/evm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freshAddress } from "../../packages/treasury/test/support/evm-treasury.ts";
import { type TransfersClient, transfersClient } from "../api/transfers-support.ts";
import { runCli, startRole, startService } from "../cli/run-cli.ts";
import { createLiquidationAddress } from "../liquidation/drain-support.ts";
import { eventually, type TestMerchant } from "../support/api-harness.ts";
import { POSTGRES_ONLY, stopProcess } from "./several-processes.ts";
import { createCliMerchant, remoteApi } from "./transfer-chains.ts";
import { useTransferChains } from "./use-transfer-chains.ts";

const TIMEOUT_MS = 240_000;
const DEPOSITS = 6;
/** Deposits two workers race for: more than one pass's worth of concurrent drains (4). */
const RACED_DEPOSITS = 10;

/** The worker as its own node process: a SIGKILL of the child is a kill -9 of the service. */
async function startWorker(env: Record<string, string | undefined>) {
  const started = await startRole(["--role", "worker"], env, /workers ready/);
  const exited = new Promise<NodeJS.Signals | number | null>((done) =>
    started.child.once("exit", (code, signal) => done(signal ?? code)),
  );
  return { child: started.child, exited, output: started.output };
}

/** Drains a worker's drainer reports having submitted (its "liquidation drains" log lines). */
function submittedIn(output: string): number {
  let n = 0;
  for (const line of output.split("\n")) {
    if (!line.includes('"msg":"liquidation drains"')) continue;
    n += Number((JSON.parse(line) as { submitted?: number }).submitted ?? 0);
  }
  return n;
}

/**
 * Issue 30 "the same deposit is never drained twice across a kill -9 of the worker" and "several
 * workers": the api, worker,
 * indexer and signer roles as separate processes on one PostgreSQL, BASE on anvil. USDC deposits to a
 * liquidation address bound to a BASE USDC payee; the worker (whose drainer turns them into
 * transfers) dies by SIGKILL while draining; after a restart every deposit has one drain, one
 * transfer and one payment on chain, and `ledger check` is clean. Then two workers started at once
 * drain the same deposits: the same, and the drains they report add up to one per deposit.
 */
describe.skipIf(!process.env.DATABASE_URL)(`liquidation drains across worker processes ${POSTGRES_ONLY}`, () => {
  const { database, chains, rolesEnv } = useTransferChains("mpliqcrash-");
  let env: Record<string, string | undefined>;
  const running: ChildProcess[] = [];
  let t: TransfersClient;
  let merchant: TestMerchant;
  let customerId: string;
  let indexerOutput = () => "";
  /** Workers still running when a test ends: the next one stops them before its deposits. */
  let workers: ChildProcess[] = [];

  beforeAll(async () => {
    env = rolesEnv();
    const signer = await startRole(["--role", "signer"], env, /signer started/);
    running.push(signer.child);
    const indexer = await startRole(["--role", "indexer"], env, /"msg":"indexers started"/);
    running.push(indexer.child);
    indexerOutput = () => indexer.output().slice(-3000);
    const api = await startService(["--role", "api"], env);
    running.push(api.child);
    merchant = await createCliMerchant(env, "Liquidation crash");
    t = await transfersClient(remoteApi(api.url));
    // A verified customer needs the worker (its KYC and banking jobs); it is stopped again before the deposits.
    const worker = await startWorker(env);
    running.push(worker.child);
    customerId = (await t.bankCustomer(merchant)).customerId;
    await stopProcess(worker.child);
  }, TIMEOUT_MS);
  afterAll(async () => {
    for (const child of running) await stopProcess(child);
  });

  /** A liquidation address bound to a fresh BASE USDC payee. */
  async function payeeAddress() {
    const payee = freshAddress();
    const destination = { type: "CRYPTO_ADDRESS", network: "BASE", asset: "USDC", address: payee };
    const created = await createLiquidationAddress(t, merchant, customerId, destination);
    return { payee, ...(created as { id: string; address: `0x${string}` }) };
  }

  /**
   * `count` USDC deposits to `address`, seen and confirmed by the indexer role, with no worker
   * running. The payer is an anvil dev account other than the deployer and the address itself: the
   * sandbox's mnemonic is anvil's, so the merchant's n-th address is anvil's n-th account.
   */
  async function confirmedDeposits(address: `0x${string}`, count: number) {
    for (const child of workers) await stopProcess(child);
    workers = [];
    const payer = ANVIL_ACCOUNTS.slice(1).find((a) => a.address.toLowerCase() !== address.toLowerCase());
    if (!payer) throw new Error("anvil has dev accounts besides the deployer");
    await transferToken(chains.base.node, chains.base.usdc, payer.address, 1_000_000_000n);
    for (let i = 1; i <= count; i += 1) {
      await transferToken(chains.base.node, chains.base.usdc, address, BigInt(i) * 5_000_000n + 7n, { from: payer });
    }
    const confirmed = async () =>
      (
        await database.db.query<{ n: string }>(
          "SELECT count(*)::text AS n FROM deposits WHERE lower(to_address) = lower($1) AND status = 'CONFIRMED'",
          [address],
        )
      ).rows[0]?.n;
    await eventually(async () => ((await confirmed()) === String(count) ? true : undefined), 90_000, 250).catch(
      async (e) => {
        const all = await database.db.query("SELECT to_address, status FROM deposits");
        const w = await database.db.query("SELECT chain, address FROM destinations ORDER BY created_at DESC LIMIT 3");
        throw new Error(`${e} ${address} ${JSON.stringify(all.rows)} ${JSON.stringify(w.rows)} ${indexerOutput()}`);
      },
    );
  }

  async function startTrackedWorker() {
    const worker = await startWorker(env);
    running.push(worker.child);
    workers.push(worker.child);
    return worker;
  }

  /** Every deposit drained and paid once: one drain, transfer and send each, the payee holding their sum. */
  async function expectPaidOnce(address: { id: string; payee: string }, count: number) {
    const drains = async () =>
      (await t.call(merchant, `/v1/liquidation-addresses/${address.id}/drains?limit=100`)).body.data.items as Array<{
        deposit_id: string;
        state: string;
        transfer_id: string | null;
        destination_amount: { value: string };
      }>;
    await eventually(
      async () => {
        const seen = await drains();
        return seen.length === count && seen.every((d) => d.state === "payment_processed") ? true : undefined;
      },
      150_000,
      500,
    );
    const paid = await drains();
    expect(new Set(paid.map((d) => d.deposit_id)).size).toBe(count);
    // One transfer per deposit, one payment per transfer.
    const transfers = await database.db.query<{ deposit_id: string; transfers: string; sends: string }>(
      `SELECT ld.deposit_id, count(DISTINCT t.id)::text AS transfers, count(DISTINCT s.id)::text AS sends
         FROM liquidation_drains ld JOIN transfers t ON t.id = ld.transfer_id
         LEFT JOIN treasury_sends s ON s.to_address ILIKE $2 AND s.idempotency_key LIKE '%' || t.id::text || '%'
        WHERE ld.liquidation_address_id = $1 GROUP BY ld.deposit_id`,
      [address.id, address.payee],
    );
    expect(transfers.rows.map((r) => [r.transfers, r.sends])).toEqual(paid.map(() => ["1", "1"]));
    const allSends = await database.db.query("SELECT 1 FROM treasury_sends WHERE to_address ILIKE $1", [address.payee]);
    expect(allSends.rowCount).toBe(count);
    // The payee holds exactly the drains' destination amounts: nothing paid twice.
    const owed = paid.reduce((n, d) => n + BigInt(Math.round(Number(d.destination_amount.value) * 1e6)), 0n);
    expect(await tokenBalance(chains.base.node, chains.base.usdc, address.payee as `0x${string}`)).toBe(owed);
    const check = await runCli(["ledger", "check"], env);
    expect(check.code, check.stdout + check.stderr).toBe(0);
  }

  it(
    "kill -9 of the worker while it drains: after a restart, each deposit drained and paid once",
    async () => {
      const address = await payeeAddress();
      await confirmedDeposits(address.address, DEPOSITS);

      // The worker starts draining; killed as soon as the first drain left awaiting_funds (mid-pass or
      // just after it), with the others still to do.
      const worker = await startTrackedWorker();
      await eventually(
        async () => {
          const { rows } = await database.db.query<{ n: string }>(
            "SELECT count(*)::text AS n FROM liquidation_drains WHERE liquidation_address_id = $1 AND state <> 'awaiting_funds'",
            [address.id],
          );
          return Number(rows[0]?.n) > 0 ? true : undefined;
        },
        60_000,
        20,
      );
      worker.child.kill("SIGKILL");
      expect(await worker.exited).toBe("SIGKILL");

      await startTrackedWorker();
      await expectPaidOnce(address, DEPOSITS);
    },
    TIMEOUT_MS,
  );

  it(
    "two workers started at once drain the same deposits: each drained and paid once, the ledger clean",
    async () => {
      const address = await payeeAddress();
      await confirmedDeposits(address.address, RACED_DEPOSITS);
      // Spawned together, the two start their drainers within moments of each other, both finding the
      // same confirmed drains (a pass of 10 at 4 at once takes longer than that on this machine).
      const both = await Promise.all([startTrackedWorker(), startTrackedWorker()]);
      await expectPaidOnce(address, RACED_DEPOSITS);
      // SKIP LOCKED: what one worker holds the other skips; together they submitted each drain once.
      const submitted = both.map((w) => submittedIn(w.output()));
      expect(
        submitted.reduce((a, b) => a + b, 0),
        `submitted per worker ${submitted}`,
      ).toBe(RACED_DEPOSITS);
    },
    TIMEOUT_MS,
  );
});
