import type { BrowserContext, Page } from "playwright-core";
import { it } from "vitest";
import { BROWSER_TIMEOUT_MS, type DashboardBrowser } from "./browser-support.ts";

/** Who a browser test signs in as: an email (landing on "Overview"), or one landing elsewhere (an operator). */
export type SignedInAs = string | { email: string; landing: { name: string; level?: number } };

/** What a browser test's body gets: its fresh page and that page's own context. */
export type OpenedPage = { page: Page; context: BrowserContext };

/** A browser test signed in as someone: its title, who, and its body on the signed-in page. */
export type ItSignedIn = (title: string, as: SignedInAs, body: (opened: OpenedPage) => Promise<void>) => void;

/** A browser test on a fresh page nobody has signed in on (it follows a link, or signs in itself). */
export type ItOnNewPage = (title: string, body: (opened: OpenedPage) => Promise<void>) => void;

/**
 * The browser tests of `side`: each on a fresh page (its own context), signed in as `as`
 * (DashboardBrowser.signedInPage) or not at all (DashboardBrowser.newPage), its context closed
 * however the test ends. Kept apart from browser-support.ts, which the bench scripts load outside
 * vitest.
 */
export function browserTestsOn(side: DashboardBrowser): { itSignedIn: ItSignedIn; itOnNewPage: ItOnNewPage } {
  const itOn = (title: string, open: () => Promise<OpenedPage>, body: (opened: OpenedPage) => Promise<void>) =>
    it(
      title,
      async () => {
        const opened = await open();
        try {
          await body(opened);
        } finally {
          await opened.context.close();
        }
      },
      BROWSER_TIMEOUT_MS,
    );
  return {
    itSignedIn: (title, as, body) =>
      itOn(
        title,
        () => (typeof as === "string" ? side.signedInPage(as) : side.signedInPage(as.email, as.landing)),
        body,
      ),
    itOnNewPage: (title, body) => itOn(title, () => side.newPage(), body),
  };
}
