import type { ChildProcess } from "node:child_process";
import { tokenBalance } from "@mp/test-nodes/evm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freshAddress } from "../../packages/treasury/test/support/evm-treasury.ts";
import {
  COMPLETED_JIT_STATUSES,
  type TransfersClient,
  transferStatuses,
  transfersClient,
} from "../api/transfers-support.ts";
import { runCli, startRole, startService } from "../cli/run-cli.ts";
import { eventually, type TestMerchant } from "../support/api-harness.ts";
import { POSTGRES_ONLY, stopProcess } from "./several-processes.ts";
import { createCliMerchant, remoteApi, transferPayouts } from "./transfer-chains.ts";
import { useTransferChains } from "./use-transfer-chains.ts";

const TIMEOUT_MS = 180_000;

/**
 * A role as its own node process (`direct`: a SIGKILL of the child is a kill -9 of the service, not of
 * tsx). `exited`: the signal (or code) it ended with.
 */
async function startDirect(role: "worker" | "signer", env: Record<string, string | undefined>) {
  const ready = role === "worker" ? /workers ready/ : /signer started/;
  const started = await startRole(["--role", role], env, ready);
  const exited = new Promise<NodeJS.Signals | number | null>((done) =>
    started.child.once("exit", (code, signal) => done(signal ?? code)),
  );
  return { child: started.child, output: started.output, exited };
}

/**
 * Issue 15 "kill -9 between funding and execution loses and duplicates nothing": the api, worker and
 * signer roles as separate processes on one PostgreSQL, BASE on anvil. The worker (which turns a
 * FUNDED transfer into a treasury send) or the signer (which signs and broadcasts it) dies by SIGKILL
 * right there; after a restart the payee holds the amount exactly once and the transfer completed once.
 */
describe.skipIf(!process.env.DATABASE_URL)(
  `transfers survive kill -9 of the worker and of the signer between funding and execution ${POSTGRES_ONLY}`,
  () => {
    const { database, chains, rolesEnv } = useTransferChains("mptransfercrash-");
    let env: Record<string, string | undefined>;
    const running: ChildProcess[] = [];
    let worker: Awaited<ReturnType<typeof startDirect>>;
    let signer: Awaited<ReturnType<typeof startDirect>>;
    let t: TransfersClient;
    let merchant: TestMerchant;
    let customer: { customerId: string; virtualAccountId: string };

    const start = async (role: "worker" | "signer", more: Record<string, string> = {}) => {
      const started = await startDirect(role, { ...env, ...more });
      running.push(started.child);
      return started;
    };

    beforeAll(async () => {
      env = rolesEnv();
      // The signer first: it stores the public material the api role derives addresses from.
      signer = await start("signer");
      const api = await startService(["--role", "api"], env);
      running.push(api.child);
      worker = await start("worker");
      merchant = await createCliMerchant(env, "Crash");
      t = await transfersClient(remoteApi(api.url));
      customer = await t.bankCustomer(merchant);
    }, TIMEOUT_MS);
    afterAll(async () => {
      for (const child of running) await stopProcess(child);
    });

    /** A bank-funded transfer of 30.15 USD -> 30 USDC to a fresh payee, awaiting its credit. */
    const awaitingTransfer = async () => {
      const payee = freshAddress();
      const quote = await t.quote(merchant, customer.customerId, {
        destination: { type: "CRYPTO_ADDRESS", asset: "USDC", network: "BASE", address: payee },
        source_amount: undefined,
        destination_amount: "30",
      });
      const transfer = (await t.transfer(merchant, quote.id)).body.data;
      const { reference } = (await t.call(merchant, `/v1/transfers/${transfer.id}/funding`)).body.data.intent
        .bank_transfer;
      return {
        payee,
        id: transfer.id as string,
        reference: reference as string,
        amount: (quote.source_amount as { value: string }).value,
      };
    };
    const status = async (id: string) => (await t.call(merchant, `/v1/transfers/${id}`)).body.data.status as string;
    const completedOnce = async (id: string, payee: `0x${string}`, nonceBefore: number) => {
      await eventually(async () => ((await status(id)) === "COMPLETED" ? true : undefined), 90_000, 250);
      expect(await tokenBalance(chains.base.node, chains.base.usdc, payee)).toBe(30_000000n);
      const payouts = await transferPayouts(database.db, id);
      expect(payouts.map((p) => p.state)).toEqual(["confirmed"]);
      expect(await chains.base.node.publicClient.getTransactionCount({ address: chains.base.treasury })).toBe(
        nonceBefore + 1,
      );
      expect(await transferStatuses(database.db, id)).toEqual(COMPLETED_JIT_STATUSES);
      const completedEvents = await database.db.query(
        "SELECT 1 FROM events WHERE object_id = $1 AND type = 'transfer.completed'",
        [id],
      );
      expect(completedEvents.rowCount).toBe(1);
      const check = await runCli(["ledger", "check"], env);
      expect(check.code, check.stdout + check.stderr).toBe(0);
    };

    it(
      "kill -9 of the worker the moment the credit made the transfer FUNDED: after a restart, one payment on chain",
      async () => {
        const nonceBefore = await chains.base.node.publicClient.getTransactionCount({ address: chains.base.treasury });
        const transfer = await awaitingTransfer();
        const credited = await t.credit(merchant, customer.virtualAccountId, transfer.amount, transfer.reference);
        expect(credited.status, credited.text).toBe(201);
        // The worker's executor ticks every second: killed now, it dies before, during or just after
        // turning the transfer into a send; each must end the same way.
        worker.child.kill("SIGKILL");
        expect(await worker.exited).toBe("SIGKILL");
        const seen = await status(transfer.id);
        expect(["FUNDED", "PROCESSING"]).toContain(seen);
        expect((await transferPayouts(database.db, transfer.id)).length).toBe(seen === "FUNDED" ? 0 : 1);

        worker = await start("worker");
        await completedOnce(transfer.id, transfer.payee, nonceBefore);
      },
      TIMEOUT_MS,
    );

    it(
      "kill -9 of the signer after it broadcast the transfer's payment, before recording it: after a restart, one payment on chain",
      async () => {
        await stopProcess(signer.child);
        signer = await start("signer", { PAYMENTS_TEST_HALT_AFTER: "broadcast" });
        const nonceBefore = await chains.base.node.publicClient.getTransactionCount({ address: chains.base.treasury });
        const transfer = await awaitingTransfer();
        const credited = await t.credit(merchant, customer.virtualAccountId, transfer.amount, transfer.reference);
        expect(credited.status, credited.text).toBe(201);
        // The worker asks for the send; the signer signs, broadcasts and SIGKILLs itself (no cleanup).
        expect(await signer.exited).toBe("SIGKILL");
        expect(signer.output()).toContain('"stage":"broadcast"');
        expect(await status(transfer.id)).toBe("PROCESSING");
        const stored = await transferPayouts(database.db, transfer.id);
        expect(stored.map((p) => p.state)).toEqual(["signed"]);

        signer = await start("signer");
        await completedOnce(transfer.id, transfer.payee, nonceBefore);
        // The broadcast attempt was found or rebroadcast, never signed again.
        expect((await transferPayouts(database.db, transfer.id)).map((p) => p.tx_hash)).toEqual(
          stored.map((p) => p.tx_hash),
        );
      },
      TIMEOUT_MS,
    );
  },
);
