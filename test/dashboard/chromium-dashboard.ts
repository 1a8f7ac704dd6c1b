import type { Browser } from "playwright-core";
import { serveDashboard } from "../../packages/dashboard/test/support/dashboard-client.ts";
import type { ApiHarness, HarnessOptions } from "../support/api-harness.ts";
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

/** Opens both; the browser is closed again when the harness fails, so a failing beforeAll leaves none behind. */
export async function openChromiumDashboard(options: HarnessOptions = {}): Promise<ChromiumDashboard> {
  const browser = await launchChromium();
  try {
    const served = await serveDashboard(options);
    const close = async () => {
      await browser.close();
      await served.close();
    };
    return { ...served, browser, close };
  } catch (error) {
    await browser.close();
    throw error;
  }
}
