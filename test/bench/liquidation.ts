import { DEFAULT_DRAIN_CONCURRENCY, startDrainer } from "@mp/liquidation";
import { createSandboxBankingProvider } from "@mp/providers";
import { executeTransfersOnce } from "@mp/transfers";
import { transferTreasury } from "../../services/payments/src/transfer-treasury.ts";
import { usBank } from "../api/transfers-bank-support.ts";
import { startTransfersApi } from "../api/transfers-support.ts";
import { catchUp, newIndexer } from "../indexer/indexer-fixtures.ts";
import { CONFIRMATIONS, startEvmChain } from "../indexer/test-chains.ts";
import { printTable } from "./measure.ts";

/** A loop of `step` until stopped, one pass at a time. */
function loop(step: () => Promise<unknown>, pauseMs: number): { stop(): Promise<void> } {
  let stopped = false;
  const done = (async () => {
    while (!stopped) {
      await step().catch(() => undefined);
      await new Promise((r) => setTimeout(r, pauseMs));
    }
  })();
  return {
    async stop() {
      stopped = true;
      await done;
    },
  };
}

/**
 * `pnpm bench liquidation [--deposits N] [--addresses M]` (issue 30, default 1,000 deposits to 100
 * addresses): USDC paid on anvil (BASE) to liquidation addresses bound to sandbox bank accounts,
 * seen and confirmed by the real indexer, drained by the drainer (every 200 ms), paid out by the
 * transfer executor to the sandbox bank (payouts complete at once), all running at the same time as
 * the payments (`drainConcurrency`: drains moved at once, the drainer's default unless given). Prints each drain's latency from its deposit's confirmation to payment_processed
 * (target: all within 60 s) and checks that no deposit was paid out twice.
 */
export async function runLiquidationBench(
  options: { deposits?: number; addresses?: number; drainConcurrency?: number } = {},
): Promise<void> {
  const deposits = options.deposits ?? 1_000;
  const addressCount = Math.min(options.addresses ?? 100, deposits);
  const base = await startEvmChain();
  const t = await startTransfersApi({ chains: { BASE: base.config } });
  const db = t.api.db;
  const indexer = newIndexer(db, base);
  const bank = { banking: createSandboxBankingProvider({ payoutDelayMs: 0 }), keyring: t.api.deps.encryption };
  const loops: { stop(): Promise<void> }[] = [];
  try {
    const merchant = await t.api.merchant();
    const { customerId } = await t.bankCustomer(merchant);
    const addresses: string[] = [];
    for (let i = 0; i < addressCount; i += 1) {
      const res = await t.call(merchant, "/v1/liquidation-addresses", {
        method: "POST",
        idempotencyKey: `bench-liq-${i}`,
        json: {
          customer_id: customerId,
          network: "BASE",
          asset: "USDC",
          // Accounts ending in 1: never the sandbox bank's failing (0002) or returning (0003) ones.
          destination: usBank(String((1_000_000 + i) * 10 + 1)),
        },
      });
      if (res.status !== 201) throw new Error(`address ${i}: ${res.status} ${res.text}`);
      addresses.push(res.body.data.address);
    }
    loops.push(loop(() => catchUp(indexer, 1_000), 100));
    loops.push(
      startDrainer({
        db,
        keyring: t.api.deps.encryption,
        rates: t.api.deps.rates,
        intervalMs: 200,
        concurrency: options.drainConcurrency,
        settings: {
          spreadBps: t.api.deps.transfers.spreadBps,
          feeFixedUsdMicros: 250_000n,
          feeBps: 100,
          travelRuleThresholdUsdMicros: t.api.deps.transfers.travelRuleThresholdUsdMicros,
        },
      }),
    );
    loops.push(
      loop(() => executeTransfersOnce(db, transferTreasury, { bank: { ...bank, returnCheckSeconds: 0 } }), 200),
    );

    const started = Date.now();
    for (let i = 0; i < deposits; i += 1) {
      await base.pay(addresses[i % addressCount] as string, 5_000_000n + BigInt(i));
    }
    await base.mine(CONFIRMATIONS);
    const paidSeconds = (Date.now() - started) / 1000;
    const deadline = Date.now() + 600_000;
    let processed = 0;
    for (;;) {
      const { rows } = await db.query<{ processed: string; ended: string }>(
        `SELECT count(*) FILTER (WHERE state = 'payment_processed') AS processed,
                count(*) FILTER (WHERE state NOT IN ('awaiting_funds', 'payment_submitted')) AS ended
           FROM liquidation_drains`,
      );
      processed = Number(rows[0]?.processed ?? 0);
      if (Number(rows[0]?.ended ?? 0) >= deposits || Date.now() > deadline) break;
      await new Promise((r) => setTimeout(r, 250));
    }
    const totalSeconds = (Date.now() - started) / 1000;
    for (const l of loops.splice(0)) await l.stop();

    // s: confirmation -> paid; submit: confirmation -> its transfer made (the drainer's part of s).
    const latency = await db.query<{ p50: string; p99: string; max: string; over60: string; submit: string }>(
      `SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY s)::numeric(10, 2)::text AS p50,
              percentile_cont(0.99) WITHIN GROUP (ORDER BY s)::numeric(10, 2)::text AS p99,
              max(s)::numeric(10, 2)::text AS max, count(*) FILTER (WHERE s > 60)::text AS over60,
              percentile_cont(0.5) WITHIN GROUP (ORDER BY submit)::numeric(10, 2)::text AS submit
         FROM (SELECT extract(epoch FROM x.at - d.confirmed_at) AS s, extract(epoch FROM y.at - d.confirmed_at) AS submit
                 FROM liquidation_drains ld JOIN deposits d ON d.id = ld.deposit_id
                 JOIN liquidation_drain_transitions x ON x.drain_id = ld.id AND x.to_state = 'payment_processed'
                 JOIN liquidation_drain_transitions y ON y.drain_id = ld.id AND y.to_state = 'payment_submitted') l`,
    );
    // Paid twice: a deposit with two drains, a drain with two transfers' payouts, a payout completed twice.
    const twice = await db.query<{ n: string }>(
      `SELECT count(*)::text AS n FROM (
         SELECT ld.deposit_id FROM liquidation_drains ld
           JOIN transfer_payouts p ON p.transfer_id = ld.transfer_id AND p.status = 'COMPLETED'
          GROUP BY ld.deposit_id HAVING count(*) > 1) x`,
    );
    const l = latency.rows[0];
    printTable(
      `Liquidation: ${deposits} USDC deposits on anvil to ${addressCount} addresses, drained to the sandbox bank (target: each paid within 60 s of its confirmation, none twice)`,
      [
        {
          deposits,
          addresses: addressCount,
          "drains at once": options.drainConcurrency ?? DEFAULT_DRAIN_CONCURRENCY,
          "payments s": Number(paidSeconds.toFixed(1)),
          "all paid s": Number(totalSeconds.toFixed(1)),
          processed,
          "p50 s": l?.p50 ?? "-",
          "p99 s": l?.p99 ?? "-",
          "max s": l?.max ?? "-",
          "p50 to submitted s": l?.submit ?? "-",
          "over 60 s": l?.over60 ?? "-",
          "paid twice": twice.rows[0]?.n ?? "-",
        },
      ],
    );
  } finally {
    for (const l of loops) await l.stop();
    // Hands the chain's lease over: its keeper holds a pooled connection, and the database's close
    // (in t.stop) waits for every connection back: without this the bench never ended (`bench all` hung).
    await indexer.stop();
    await t.stop();
    await base.close();
  }
}
