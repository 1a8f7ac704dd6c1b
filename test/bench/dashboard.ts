import { gzipSync } from "node:zlib";
import { createApp } from "@mp/api";
import { createUser, withDashboard } from "../../packages/dashboard/src/index.ts";
import { launchChromium } from "../dashboard/browser-support.ts";
import { startApiHarness } from "../support/api-harness.ts";
import { insertDeposits } from "../support/bulk-deposits.ts";
import { loadAverage, measureFirstRender } from "./dashboard-first-render.ts";
import { listen, printTable } from "./measure.ts";

const PASSWORD = "correct horse battery staple";

function percentile(samples: number[], p: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0;
}

const ms = (n: number) => Number(n.toFixed(1));

/**
 * `pnpm bench dashboard`: (1) the first load of /dashboard from the production build, as a browser
 * makes it: index.html, its script and stylesheet, the session, then the first API answer (the
 * overview), timed end to end over HTTP on localhost (a browser's parse and render are not in it),
 * with the gzipped size of the JS; (2) the deposits page's API with 100,000 deposits of one
 * merchant, inserted in one SQL statement: keyset pages walked from the newest to deep in the list,
 * unfiltered and filtered, p95 per page; (3) the first render in Debian's Chromium of the overview
 * and of the deposits page with those 100,000 deposits: navigation to the first deposit row shown.
 * Targets (issue): first load < 1 s, JS < 250 KB gzipped, deposits p95 < 100 ms per page.
 */
export async function runDashboardBench(options: { deposits?: number } = {}): Promise<void> {
  const total = options.deposits ?? 100_000;
  const api = await startApiHarness({ overrides: { rateLimitPerMinute: 10_000_000 } });
  const { merchantId, apiKey } = await api.merchant();
  const post = async (path: string, body: unknown, key: string) => {
    const res = await fetch(`${api.url}${path}`, {
      method: "POST",
      headers: { "x-service-api-key": apiKey, "x-idempotency-key": key, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    return ((await res.json()) as { data: { id: string } }).data.id;
  };
  const customerId = await post("/v1/customers", { type: "INDIVIDUAL", first_name: "Bench", last_name: "Mark" }, "c");
  const walletId = await post("/v1/wallets", { customer_id: customerId, label: "bench" }, "w");
  const pending = Math.round(total / 20);
  const started = performance.now();
  await insertDeposits(api.db, walletId, { count: total - pending });
  await insertDeposits(api.db, walletId, { count: pending, chain: "SOLANA", status: "PENDING" });
  await api.db.query("ANALYZE deposits");
  const insertSeconds = (performance.now() - started) / 1000;

  const app = withDashboard(createApp(api.deps), { ...api.deps, appDeps: api.deps });
  const { url, server } = await listen(app);
  await createUser(api.db, {
    email: "bench@example.com",
    role: "owner",
    merchantId,
    password: PASSWORD,
    actor: "bench",
  });
  const signIn = await fetch(`${url}/dashboard/api/session`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ email: "bench@example.com", password: PASSWORD }),
  });
  const cookie = /^[^;]+/.exec(signIn.headers.get("set-cookie") ?? "")?.[0] ?? "";
  const get = async (path: string) => {
    const res = await fetch(`${url}${path}`, { headers: { cookie, "accept-encoding": "gzip" } });
    const body = await res.arrayBuffer();
    if (!res.ok) throw new Error(`${path}: ${res.status}`);
    return new Uint8Array(body);
  };

  // (1) First load: what the browser fetches before the first page shows data.
  const loads: number[] = [];
  let jsRaw = 0;
  let jsGzip = 0;
  for (let i = 0; i < 21; i++) {
    const t0 = performance.now();
    const html = new TextDecoder().decode(await get(`/dashboard/merchants/${merchantId}/overview`));
    const assets = [...html.matchAll(/(?:src|href)="(\/dashboard\/assets\/[^"]+)"/g)].map((m) => m[1] ?? "");
    const bodies = await Promise.all(assets.map((asset) => get(asset)));
    await get("/dashboard/api/session");
    await get(`/dashboard/api/merchants/${merchantId}/overview`);
    loads.push(performance.now() - t0);
    if (i === 0) {
      assets.forEach((asset, n) => {
        const body = bodies[n];
        if (asset.endsWith(".js") && body) {
          jsRaw += body.length;
          jsGzip += gzipSync(body).length;
        }
      });
    }
  }
  const [cold = 0, ...warm] = loads;
  printTable("Dashboard first load (index.html + JS + CSS + session + overview answer, localhost, production build)", [
    {
      "cold ms": ms(cold),
      "warm p50 ms": ms(percentile(warm, 50)),
      "warm p95 ms": ms(percentile(warm, 95)),
      "JS KB": ms(jsRaw / 1024),
      "JS KB gzipped": ms(jsGzip / 1024),
      target: "< 1000 ms, < 250 KB",
    },
  ]);

  // (2) The deposits page: keyset pages of 25 and 100, newest first, then deep in the list.
  const walk = async (query: string, pages: number) => {
    const times: number[] = [];
    let after: string | null = null;
    for (let i = 0; i < pages; i++) {
      const t0 = performance.now();
      const body = await get(
        `/dashboard/api/merchants/${merchantId}/deposits?${query}${after ? `&after=${after}` : ""}`,
      );
      times.push(performance.now() - t0);
      after = (JSON.parse(new TextDecoder().decode(body)) as { next: string | null }).next;
      if (!after) break;
    }
    return times;
  };
  await walk("limit=25", 20);
  const rows: Array<Record<string, string | number>> = [];
  const deepest = await api.db.query<{ id: string }>(
    `SELECT id FROM deposits WHERE merchant_id = $1 ORDER BY created_at DESC, id DESC OFFSET $2 LIMIT 1`,
    [merchantId, total - 200],
  );
  for (const [label, query, pages] of [
    ["all, 25 per page, pages 1-400", "limit=25", 400],
    ["all, 100 per page, pages 1-200", "limit=100", 200],
    ["status=PENDING (5%), 25 per page", "limit=25&status=PENDING", 200],
    ["chain=BASE, status=CONFIRMED, 25 per page", "limit=25&status=CONFIRMED&chain=BASE", 200],
    [`all, 25 per page, from deposit ${total - 200} on`, `limit=25&after=${deepest.rows[0]?.id}`, 1],
  ] as const) {
    const times: number[] = [];
    if (pages === 1) {
      // The same deep page, asked 50 times one after the other.
      for (let i = 0; i < 50; i++) times.push(await timeOnce(query));
    } else {
      times.push(...(await walk(query, pages)));
    }
    rows.push({
      pages: label,
      requests: times.length,
      "p50 ms": ms(percentile(times, 50)),
      "p95 ms": ms(percentile(times, 95)),
      "max ms": ms(Math.max(...times)),
    });
  }
  async function timeOnce(query: string) {
    const t0 = performance.now();
    await get(`/dashboard/api/merchants/${merchantId}/deposits?${query}`);
    return performance.now() - t0;
  }
  // For contrast: /v1's numbered pages (OFFSET and a count) at the same depths.
  const offsetTimes: number[] = [];
  for (const page of [1, 1000, 2000, 3990]) {
    const t0 = performance.now();
    const res = await fetch(`${api.url}/v1/deposits?limit=25&page=${page}`, {
      headers: { "x-service-api-key": apiKey },
    });
    await res.arrayBuffer();
    offsetTimes.push(performance.now() - t0);
  }
  rows.push({
    pages: "contrast: GET /v1/deposits?page=1,1000,2000,3990 (OFFSET + count)",
    requests: 4,
    "p50 ms": ms(percentile(offsetTimes, 50)),
    "p95 ms": ms(percentile(offsetTimes, 95)),
    "max ms": ms(Math.max(...offsetTimes)),
  });
  printTable(
    `Deposits page API with ${total.toLocaleString("en")} deposits (inserted in ${insertSeconds.toFixed(1)} s; database: ${
      process.env.DATABASE_URL ? "PostgreSQL server" : "embedded PGlite"
    }; target p95 < 100 ms)`,
    rows,
  );

  // (3) First render in Chromium: what a person waits for, the render included.
  const browser = await launchChromium();
  try {
    const renders = await measureFirstRender(browser, url, cookie, [
      { name: "overview (10 newest deposits)", path: `/dashboard/merchants/${merchantId}/overview` },
      {
        name: `deposits page (${total.toLocaleString("en")} deposits)`,
        path: `/dashboard/merchants/${merchantId}/deposits`,
      },
    ]);
    printTable(
      `Dashboard first render in Chromium at 1280x800 (to the first deposit row; load average ${loadAverage()})`,
      [
        ...renders.map((r) => ({
          page: r.page,
          "cold ms": ms(r.coldMs),
          "p50 ms (5 fresh contexts)": ms(r.p50Ms),
          "max ms": ms(r.maxMs),
          "first contentful paint p50 ms": ms(r.paintP50Ms),
        })),
      ],
    );
  } finally {
    await browser.close();
  }
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  await api.stop();
}
