import type { BrowserContext, Page } from "playwright-core";
import { it } from "vitest";
import { BROWSER_TIMEOUT_MS, type DashboardBrowser } from "./browser-support.ts";

/** Who a browser test signs in as: an email (landing on "Overview"), or one landing elsewhere (an operator). */
export type SignedInAs = string | { email: string; landing: { name: string; level?: number } };

/** A browser test signed in as someone: its title, who, and its body on the signed-in page. */
export type ItSignedIn = (
  title: string,
  as: SignedInAs,
  body: (opened: { page: Page; context: BrowserContext }) => Promise<void>,
) => void;

/**
 * The browser tests of `side`: each on a fresh page (its own context) signed in as `as`
 * (DashboardBrowser.signedInPage), its context closed however the test ends. Kept apart from
 * browser-support.ts, which the bench scripts load outside vitest.
 */
export function itSignedInOn(side: DashboardBrowser): ItSignedIn {
  return (title, as, body) =>
    it(
      title,
      async () => {
        const opened =
          typeof as === "string" ? await side.signedInPage(as) : await side.signedInPage(as.email, as.landing);
        try {
          await body(opened);
        } finally {
          await opened.context.close();
        }
      },
      BROWSER_TIMEOUT_MS,
    );
}
