import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createTestDatabase } from "@mp/db/testing";
import { startRole } from "../cli/run-cli.ts";
import { launchChromium } from "../dashboard/browser-support.ts";
import { stopProcessGroup } from "../e2e/several-processes.ts";
import { createCliMerchant } from "../e2e/transfer-chains.ts";
import { callApi } from "../support/api-harness.ts";
import { printTable } from "./measure.ts";

const percentile = (values: number[], p: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
};
const ms = (value: number) => Number(value.toFixed(1));

/**
 * `pnpm bench checkout`: issue 31's two figures against the local service (`payments serve --role
 * all` with its local sandbox chains, as `pnpm start` runs it):
 * - the hosted page's first render (target < 300 ms): GET /pay/{token} to the whole HTML (the first,
 *   cold, then `pages` in a row), and in Chromium the navigation to first contentful paint;
 * - its status within 1 s of the deposit's confirmation (target): a sandbox deposit of the whole
 *   amount, the public status polled every 25 ms; the figure is from the deposit's confirmed_at (the
 *   indexer's confirming transaction) to the first status answer saying paid.
 */
export async function runCheckoutBench(options: { rounds?: number; pages?: number } = {}): Promise<void> {
  const rounds = options.rounds ?? 3;
  const pages = options.pages ?? 50;
  const dir = mkdtempSync(join(tmpdir(), "mpbenchcheckout-"));
  const database = await createTestDatabase({ migrate: false });
  const env = {
    DATA_DIR: join(dir, "data"),
    DATABASE_URL: process.env.DATABASE_URL ? database.connectionString : undefined,
    RATE_LIMIT_PER_MINUTE: "1000000",
    PORT: "0",
    HOST: "127.0.0.1",
  };
  const service = await startRole(["--role", "all"], env, /"url":"(http:\/\/[^"]+)".*api listening/);
  const url = service.match[1] ?? "";
  const browser = await launchChromium();
  try {
    const merchant = await createCliMerchant(env, "Bench");
    let keys = 0;
    const post = async (path: string, json: unknown) => {
      const res = await callApi(url, merchant.apiKey, path, { method: "POST", json, idempotencyKey: `b${keys++}` });
      if (res.status >= 300) throw new Error(`${path}: ${res.status} ${res.text}`);
      return res.body.data;
    };
    const request = (accepted: Array<{ network: string; asset: string }>) =>
      post("/v1/payment-requests", { amount: "25.00", currency: "USD", description: "Bench", accepted });

    // 1. First render: the whole HTML over HTTP, then in Chromium.
    const shown = await request([
      { network: "BASE", asset: "USDC" },
      { network: "BITCOIN", asset: "BTC" },
    ]);
    const pagePath = new URL(shown.hosted_url).pathname;
    const timed = async () => {
      const started = performance.now();
      const res = await fetch(`${url}${pagePath}`);
      await res.text();
      return performance.now() - started;
    };
    const cold = await timed();
    const warm: number[] = [];
    for (let i = 0; i < pages; i++) warm.push(await timed());
    const paints: number[] = [];
    for (let i = 0; i < 5; i++) {
      const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
      const page = await context.newPage();
      await page.goto(`${url}${pagePath}`, { waitUntil: "load" });
      const fcp = (await page.evaluate(
        `performance.getEntriesByName("first-contentful-paint")[0]?.startTime ?? -1`,
      )) as number;
      paints.push(fcp);
      await context.close();
    }
    printTable("Hosted page first render (target < 300 ms)", [
      {
        "HTML cold ms": ms(cold),
        [`HTML p50 ms (${pages})`]: ms(percentile(warm, 50)),
        "HTML p95 ms": ms(percentile(warm, 95)),
        "Chromium first contentful paint p50 ms (5)": ms(percentile(paints, 50)),
        "max ms": ms(Math.max(...paints)),
      },
    ]);

    // 2. Status after the confirmation.
    const rows: Array<Record<string, string | number>> = [];
    for (let round = 0; round < rounds; round++) {
      const r = await request([{ network: "BASE", asset: "USDC" }]);
      const statusPath = `${new URL(r.hosted_url).pathname}/status`;
      await post("/v1/sandbox/deposits", { address: r.options[0].address, asset: "USDC", amount: "25", chain: "BASE" });
      let paidAt = 0;
      for (const deadline = Date.now() + 120_000; Date.now() < deadline; ) {
        const status = await callApi(url, undefined, statusPath);
        if (status.body?.data?.status === "paid") {
          paidAt = Date.now();
          break;
        }
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      if (!paidAt) throw new Error("the request was not paid within 2 minutes");
      const stored = (await callApi(url, merchant.apiKey, `/v1/payment-requests/${r.id}`)).body.data;
      const deposit = (await callApi(url, merchant.apiKey, `/v1/deposits/${stored.payments[0].deposit_id}`)).body.data;
      rows.push({
        round: round + 1,
        "confirmed -> status paid ms": paidAt - Date.parse(deposit.confirmed_at),
        "deposit seen -> confirmed ms": Date.parse(deposit.confirmed_at) - Date.parse(deposit.created_at),
      });
    }
    printTable("Hosted page status after the deposit's confirmation (target < 1,000 ms)", rows);
  } finally {
    await browser.close();
    await stopProcessGroup(service.child);
    await database.drop();
    rmSync(dir, { recursive: true, force: true });
  }
}
