import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createTestDatabase } from "@mp/db/testing";
import { freshAddress } from "../../packages/treasury/test/support/evm-treasury.ts";
import { transfersClient } from "../api/transfers-support.ts";
import { startService } from "../cli/run-cli.ts";
import { stopProcess } from "../e2e/several-processes.ts";
import { createCliMerchant, remoteApi, startTransferChains } from "../e2e/transfer-chains.ts";
import { load, printTable } from "./measure.ts";

/**
 * `pnpm bench transfers`: issue 15's three figures against `payments serve --role all` (BASE on
 * anvil with 1 s blocks and 3 confirmations, as the local sandbox runs it; sandbox KYC and bank).
 * - POST /v1/quotes p50 at 1 connection (target < 10 ms), next to GET /health on the same server
 *   and load (the floor of a request through this process and machine).
 * - a matching bank credit -> GET shows FUNDED (target < 1 s): from the credit POST's start.
 * - bank USD -> USDC on BASE COMPLETED end to end (target < 10 s): from the quote POST's start.
 */
export async function runTransfersBench(options: { seconds?: number; rounds?: number } = {}): Promise<void> {
  const seconds = options.seconds ?? 10;
  const rounds = options.rounds ?? 5;
  const dir = mkdtempSync(join(tmpdir(), "mpbenchtransfers-"));
  const database = await createTestDatabase({ migrate: false });
  const chains = await startTransferChains(database.db);
  const env = {
    DATA_DIR: join(dir, "data"),
    DATABASE_URL: process.env.DATABASE_URL ? database.connectionString : undefined,
    CHAINS_CONFIG: chains.chainsConfig(dir),
    TREASURY_MNEMONIC: chains.mnemonic,
    RATE_LIMIT_PER_MINUTE: "1000000",
    LOG_LEVEL: "warn",
  };
  const service = await startService(["--role", "all"], { ...env, PORT: "0", LOG_LEVEL: "info" });
  try {
    const merchant = await createCliMerchant(env, "Bench");
    const t = await transfersClient(remoteApi(service.url));
    const customer = await t.bankCustomer(merchant);
    const quoteBody = (payee: string) => ({
      customer_id: customer.customerId,
      source: { method: "BANK_TRANSFER" },
      destination: { type: "CRYPTO_ADDRESS", asset: "USDC", network: "BASE", address: payee },
      destination_amount: "10",
    });

    // 1. Quotes at 1 connection, each with its own idempotency key; /health the same way, alternating.
    const quoteLoad = {
      connections: 1,
      method: "POST" as const,
      headers: {
        "x-service-api-key": merchant.apiKey,
        "x-idempotency-key": "bench-[<id>]",
        "content-type": "application/json",
      },
      body: JSON.stringify(quoteBody(freshAddress())),
      uniqueIds: true,
    };
    await load(`${service.url}/health`, { connections: 1, seconds: 2 });
    await load(`${service.url}/v1/quotes`, { ...quoteLoad, seconds: 2 });
    const health = await load(`${service.url}/health`, { connections: 1, seconds });
    const quotes = await load(`${service.url}/v1/quotes`, { ...quoteLoad, seconds });
    printTable(
      `POST /v1/quotes at 1 connection, ${seconds} s each (database: ${process.env.DATABASE_URL ? "PostgreSQL server" : "embedded PGlite"})`,
      [
        {
          path: "GET /health (baseline)",
          "req/s": Math.round(health.requestsPerSecond),
          "p50 ms": health.p50Ms,
          "p99 ms": health.p99Ms,
          errors: health.errors + health.non2xx,
        },
        {
          path: "POST /v1/quotes",
          "req/s": Math.round(quotes.requestsPerSecond),
          "p50 ms": quotes.p50Ms,
          "p99 ms": quotes.p99Ms,
          errors: quotes.errors + quotes.non2xx,
        },
      ],
    );
    process.stdout.write(
      `quote p50 ${quotes.p50Ms} ms = ${(quotes.p50Ms / Math.max(health.p50Ms, 1)).toFixed(1)}x the /health p50 (${health.p50Ms || "< 1"} ms; whole ms) (target < 10 ms) -> ${quotes.p50Ms < 10 ? "MET" : "NOT MET"}\n`,
    );

    // 2 and 3. Whole stories, one after another: quote, transfer, funding, the credit, then GET until COMPLETED.
    const rows: Array<Record<string, string | number>> = [];
    for (let round = 1; round <= rounds; round++) {
      const payee = freshAddress();
      const started = performance.now();
      const quote = (
        await t.call(merchant, "/v1/quotes", {
          method: "POST",
          idempotencyKey: `story-quote-${round}`,
          json: quoteBody(payee),
        })
      ).body.data;
      const transfer = (await t.transfer(merchant, quote.id)).body.data;
      const { reference } = (await t.call(merchant, `/v1/transfers/${transfer.id}/funding`)).body.data.intent
        .bank_transfer;
      const creditAt = performance.now();
      const credited = await t.credit(merchant, customer.virtualAccountId, quote.source_amount.value, reference);
      if (credited.status !== 201) throw new Error(`credit refused: ${credited.text}`);
      const seen: Record<string, number> = {};
      for (;;) {
        const status = (await t.call(merchant, `/v1/transfers/${transfer.id}`)).body.data.status as string;
        seen[status] ??= performance.now();
        if (status === "COMPLETED") break;
        if (!["FUNDED", "PROCESSING"].includes(status)) throw new Error(`transfer ${transfer.id} ended ${status}`);
        if (performance.now() - started > 120_000) throw new Error(`transfer ${transfer.id} still ${status}`);
        await new Promise((r) => setTimeout(r, seen.FUNDED === undefined ? 5 : 50));
      }
      const at = (status: string) => seen[status] ?? seen.COMPLETED ?? Number.NaN;
      rows.push({
        round,
        "credit -> FUNDED ms": Math.round(at("FUNDED") - creditAt),
        "FUNDED -> PROCESSING ms": Math.round(at("PROCESSING") - at("FUNDED")),
        "PROCESSING -> COMPLETED ms": Math.round(at("COMPLETED") - at("PROCESSING")),
        "quote -> COMPLETED s": Number(((at("COMPLETED") - started) / 1000).toFixed(2)),
      });
    }
    printTable("bank USD -> 10 USDC on BASE, end to end (BASE: 1 s blocks, 3 confirmations)", rows);
    const worst = (column: string) => Math.max(...rows.map((r) => Number(r[column])));
    const funded = worst("credit -> FUNDED ms");
    const completed = worst("quote -> COMPLETED s");
    process.stdout.write(
      `credit -> FUNDED worst ${funded} ms (target < 1000 ms) -> ${funded < 1000 ? "MET" : "NOT MET"}; quote -> COMPLETED worst ${completed} s (target < 10 s) -> ${completed < 10 ? "MET" : "NOT MET"}\n`,
    );
  } finally {
    await stopProcess(service.child);
    await chains.stop();
    await database.drop();
    rmSync(dir, { recursive: true, force: true });
  }
}
