import type { ChildProcess } from "node:child_process";
import { ANVIL_ACCOUNTS, tokenBalance, transferToken } from "@mp/test-nodes/evm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freshAddress } from "../../packages/treasury/test/support/evm-treasury.ts";
import { type TransfersClient, transfersClient } from "../api/transfers-support.ts";
import { nextKey } from "../api/verification-fixtures.ts";
import { runCli, startRole, startService } from "../cli/run-cli.ts";
import { eventually, type TestMerchant } from "../support/api-harness.ts";
import { POSTGRES_ONLY, stopProcess } from "./several-processes.ts";
import { createCliMerchant, remoteApi } from "./transfer-chains.ts";
import { useTransferChains } from "./use-transfer-chains.ts";

const TIMEOUT_MS = 240_000;
const DEPOSITS = 6;

/** The worker as its own node process: a SIGKILL of the child is a kill -9 of the service. */
async function startWorker(env: Record<string, string | undefined>) {
  const started = await startRole(["--role", "worker"], env, /workers ready/);
  const exited = new Promise<NodeJS.Signals | number | null>((done) =>
    started.child.once("exit", (code, signal) => done(signal ?? code)),
  );
  return { child: started.child, exited };
}

/**
 * Issue 30 "the same deposit is never drained twice across a kill -9 of the worker": the api, worker,
 * indexer and signer roles as separate processes on one PostgreSQL, BASE on anvil. USDC deposits to a
 * liquidation address bound to a BASE USDC payee; the worker (whose drainer turns them into
 * transfers) dies by SIGKILL while draining; after a restart every deposit has one drain, one
 * transfer and one payment on chain, and `ledger check` is clean.
 */
describe.skipIf(!process.env.DATABASE_URL)(`liquidation drains survive kill -9 of the worker ${POSTGRES_ONLY}`, () => {
  const { database, chains, rolesEnv } = useTransferChains("mpliqcrash-");
  let env: Record<string, string | undefined>;
  const running: ChildProcess[] = [];
  let t: TransfersClient;
  let merchant: TestMerchant;
  let customerId: string;
  let indexerOutput = () => "";

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

  it(
    "kill -9 of the worker while it drains: after a restart, each deposit drained and paid once",
    async () => {
      const payee = freshAddress();
      const created = await t.call(merchant, "/v1/liquidation-addresses", {
        method: "POST",
        idempotencyKey: nextKey("liq"),
        json: {
          customer_id: customerId,
          network: "BASE",
          asset: "USDC",
          destination: { type: "CRYPTO_ADDRESS", network: "BASE", asset: "USDC", address: payee },
        },
      });
      expect(created.status, created.text).toBe(201);
      const address = created.body.data as { id: string; address: `0x${string}` };

      // The deposits land (the indexer role sees and confirms them) with no worker running. The payer is
      // anvil's second account: the sandbox's mnemonic makes the merchant's first address the deployer's.
      const payer = ANVIL_ACCOUNTS[1];
      if (!payer) throw new Error("anvil has a second dev account");
      await transferToken(chains.base.node, chains.base.usdc, payer.address, 1_000_000_000n);
      for (let i = 1; i <= DEPOSITS; i += 1) {
        await transferToken(chains.base.node, chains.base.usdc, address.address, BigInt(i) * 5_000_000n + 7n, {
          from: payer,
        });
      }
      const confirmed = async () =>
        (
          await database.db.query<{ n: string }>(
            "SELECT count(*)::text AS n FROM deposits WHERE lower(to_address) = lower($1) AND status = 'CONFIRMED'",
            [address.address],
          )
        ).rows[0]?.n;
      await eventually(async () => ((await confirmed()) === String(DEPOSITS) ? true : undefined), 90_000, 250).catch(
        async (e) => {
          const all = await database.db.query("SELECT to_address, status FROM deposits");
          const w = await database.db.query("SELECT chain, address FROM destinations ORDER BY created_at DESC LIMIT 3");
          throw new Error(
            `${e} ${address.address} ${JSON.stringify(all.rows)} ${JSON.stringify(w.rows)} ${indexerOutput()}`,
          );
        },
      );

      // The worker starts draining; killed as soon as the first drain left awaiting_funds (mid-pass or
      // just after it), with the others still to do.
      let worker = await startWorker(env);
      running.push(worker.child);
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

      worker = await startWorker(env);
      running.push(worker.child);
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
          return seen.length === DEPOSITS && seen.every((d) => d.state === "payment_processed") ? true : undefined;
        },
        150_000,
        500,
      );

      const paid = await drains();
      expect(new Set(paid.map((d) => d.deposit_id)).size).toBe(DEPOSITS);
      // One transfer per deposit, one payment per transfer.
      const transfers = await database.db.query<{ deposit_id: string; transfers: string; sends: string }>(
        `SELECT ld.deposit_id, count(DISTINCT t.id)::text AS transfers, count(DISTINCT s.id)::text AS sends
           FROM liquidation_drains ld JOIN transfers t ON t.id = ld.transfer_id
           LEFT JOIN treasury_sends s ON s.to_address ILIKE $2 AND s.idempotency_key LIKE '%' || t.id::text || '%'
          WHERE ld.liquidation_address_id = $1 GROUP BY ld.deposit_id`,
        [address.id, payee],
      );
      expect(transfers.rows.map((r) => [r.transfers, r.sends])).toEqual(paid.map(() => ["1", "1"]));
      const allSends = await database.db.query("SELECT 1 FROM treasury_sends WHERE to_address ILIKE $1", [payee]);
      expect(allSends.rowCount).toBe(DEPOSITS);
      // The payee holds exactly the drains' destination amounts: nothing paid twice.
      const owed = paid.reduce((n, d) => n + BigInt(Math.round(Number(d.destination_amount.value) * 1e6)), 0n);
      expect(await tokenBalance(chains.base.node, chains.base.usdc, payee)).toBe(owed);
      const check = await runCli(["ledger", "check"], env);
      expect(check.code, check.stdout + check.stderr).toBe(0);
    },
    TIMEOUT_MS,
  );
});
