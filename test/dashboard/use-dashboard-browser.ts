import type { Browser } from "playwright-core";
import { afterAll, beforeAll } from "vitest";
import type { ApiHarness, HarnessOptions } from "../support/api-harness.ts";
import { late } from "../support/late.ts";
import { BROWSER_TIMEOUT_MS, DashboardBrowser, launchChromium } from "./browser-support.ts";
import { type ChromiumDashboard, openChromiumDashboard } from "./chromium-dashboard.ts";
import { browserTestsOn, type ItOnNewPage, type ItSignedIn } from "./it-signed-in.ts";

/** What a dashboard browser test file works with, once its opening (below) has registered its hooks. */
export interface DashboardBrowserTests {
  /** The browser side: pages, sign-in, screenshots, axe. */
  side: DashboardBrowser;
  /** A test on a fresh page signed in as someone (see browserTestsOn). */
  itSignedIn: ItSignedIn;
  /** A test on a fresh page nobody has signed in on (see browserTestsOn). */
  itOnNewPage: ItOnNewPage;
  /**
   * The file's own beforeAll (its data; the processes it serves the dashboard from), run after the
   * browser's: given two browser timeouts, as users, merchants and processes take on a busy machine.
   */
  setUp(fn: () => Promise<unknown>): void;
}

function testsOn(side: DashboardBrowser): DashboardBrowserTests {
  return { side, ...browserTestsOn(side), setUp: (fn) => beforeAll(fn, 2 * BROWSER_TIMEOUT_MS) };
}

/**
 * Chromium for the calling describe block, launched in a beforeAll registered now and closed in its
 * afterAll, as the browser side of a test of the dashboard at `url()` (screenshots printed as
 * `what screenshots: DIR`). For a test that serves the dashboard itself (a `payments serve` process).
 */
export function useDashboardBrowser(what: string, url: () => string): DashboardBrowserTests {
  let browser: Browser | undefined;
  beforeAll(async () => {
    browser = await launchChromium();
  }, BROWSER_TIMEOUT_MS);
  afterAll(() => browser?.close(), BROWSER_TIMEOUT_MS);
  return testsOn(new DashboardBrowser(() => browser, url, what));
}

/**
 * The opening the in-process dashboard page tests share: Chromium, the API harness started with
 * `options` and the dashboard served on it (see openChromiumDashboard) for the calling describe
 * block, opened in a beforeAll registered now and closed in its afterAll; the browser side of the
 * test (see useDashboardBrowser). `dashboard` and `api` stand for what is opened from the start, so
 * a test reads them as plain variables (see late).
 */
export function useChromiumDashboard(
  what: string,
  options: HarnessOptions = {},
): DashboardBrowserTests & { dashboard: ChromiumDashboard; api: ApiHarness } {
  let opened: ChromiumDashboard | undefined;
  beforeAll(async () => {
    opened = await openChromiumDashboard(options);
  }, 2 * BROWSER_TIMEOUT_MS);
  afterAll(() => opened?.close(), BROWSER_TIMEOUT_MS);
  const dashboard = late("the Chromium dashboard", () => opened);
  const side = new DashboardBrowser(
    () => opened?.browser,
    () => dashboard.url,
    what,
  );
  return { dashboard, api: late("the API harness", () => opened?.api), ...testsOn(side) };
}
