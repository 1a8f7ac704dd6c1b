import type { Browser } from "playwright-core";
import { createDashboardRouter } from "../../packages/dashboard/src/index.ts";
import { listenDashboard } from "../../packages/dashboard/test/support/dashboard-client.ts";
import { type ApiHarness, type HarnessOptions, startApiHarness } from "../support/api-harness.ts";
import { launchChromium } from "./browser-support.ts";

/** What a dashboard page test opens first: Chromium, the API harness, the dashboard router served in this process. */
export interface ChromiumDashboard {
  browser: Browser;
  api: ApiHarness;
  /** The dashboard's origin (its pages under /dashboard). */
  url: string;
  /** Closes the browser, the dashboard's server and the harness. */
  close(): Promise<void>;
}

/**
 * Opens the three in order; what opened is closed again when a later one fails, so that a failing
 * beforeAll leaves no browser or database behind. Sign-ins are not rate limited (one test signs in often).
 */
export async function openChromiumDashboard(options: HarnessOptions = {}): Promise<ChromiumDashboard> {
  const browser = await launchChromium();
  let api: ApiHarness | undefined;
  try {
    const harness = await startApiHarness(options);
    api = harness;
    const served = await listenDashboard(
      createDashboardRouter({ ...harness.deps, appDeps: harness.deps, signInsPerMinute: 1000 }),
    );
    return {
      browser,
      api: harness,
      url: served.url,
      async close() {
        await browser.close();
        await served.close();
        await harness.stop();
      },
    };
  } catch (error) {
    await browser.close();
    await api?.stop();
    throw error;
  }
}
