import { loadavg } from "node:os";
import type { Browser } from "playwright-core";

/** Marks, in the page, the moment the first deposit row is in the document (ms since navigation start). */
const FIRST_ROW_OBSERVER = `
  window.__firstRowAt = undefined;
  new MutationObserver((_, observer) => {
    if (document.querySelector("[data-deposit]")) {
      window.__firstRowAt = performance.now();
      observer.disconnect();
    }
  }).observe(document, { childList: true, subtree: true });
`;

export interface FirstRender {
  page: string;
  /** Cold: a fresh context (no cache), the first visit; then `runs` more fresh contexts. */
  coldMs: number;
  p50Ms: number;
  maxMs: number;
  paintP50Ms: number;
}

function percentile(samples: number[], p: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0;
}

/**
 * In Chromium at 1280x800, signed in with `cookie` (the dashboard session's `name=value`), each of
 * `pages` opened in a fresh context: the time from the navigation's start to the first deposit row
 * in the document (the overview's newest deposits, the deposits page's first row), as the page's own
 * clock says it (a MutationObserver set before any script runs), and the first contentful paint.
 * What a person waits for: HTML, JS chunks, the session and the page's API answers, and the render.
 */
export async function measureFirstRender(
  browser: Browser,
  origin: string,
  cookie: string,
  pages: ReadonlyArray<{ name: string; path: string }>,
  runs = 5,
): Promise<FirstRender[]> {
  const split = cookie.indexOf("=");
  const name = cookie.slice(0, split);
  const value = cookie.slice(split + 1);
  const results: FirstRender[] = [];
  for (const target of pages) {
    const rows: number[] = [];
    const paints: number[] = [];
    for (let i = 0; i <= runs; i++) {
      const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, locale: "en-US" });
      await context.addCookies([{ name, value, domain: new URL(origin).hostname, path: "/dashboard" }]);
      await context.addInitScript(FIRST_ROW_OBSERVER);
      const page = await context.newPage();
      await page.goto(`${origin}${target.path}`, { waitUntil: "commit" });
      // A function, not a string: the page's Content-Security-Policy refuses a string's eval.
      await page.waitForFunction(
        () => (globalThis as { __firstRowAt?: number }).__firstRowAt !== undefined,
        undefined,
        {
          timeout: 120_000,
        },
      );
      rows.push((await page.evaluate("window.__firstRowAt")) as number);
      paints.push(
        (await page.evaluate(`performance.getEntriesByName("first-contentful-paint")[0]?.startTime ?? -1`)) as number,
      );
      await context.close();
    }
    const [cold = 0, ...warm] = rows;
    results.push({
      page: target.name,
      coldMs: cold,
      p50Ms: percentile(warm, 50),
      maxMs: Math.max(...warm),
      paintP50Ms: percentile(paints.slice(1), 50),
    });
  }
  return results;
}

/** The machine's 1-minute load average, printed beside a run's figures (they depend on it). */
export function loadAverage(): string {
  return loadavg()[0]?.toFixed(1) ?? "?";
}
