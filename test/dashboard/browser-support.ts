import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AxeResults } from "axe-core";
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core";
import { runCli } from "../cli/run-cli.ts";

/**
 * Debian's chromium (`apt-get install -y chromium`, which .ci/run does): Playwright's own browser
 * downloads do not work here. A missing browser fails the test, never skips it.
 */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
export const BROWSER_TIMEOUT_MS = 240_000;
export const PASSWORD = "correct horse battery staple";
/** The two sizes every page is looked at: a laptop and a phone. */
export const DESKTOP = { width: 1280, height: 800 };
export const PHONE = { width: 390, height: 844 };
/** The heading an operator (admin) lands on after signing in; a merchant's user lands on "Overview". */
export const OPERATOR_LANDING = { name: "Merchants", level: 1 };

/**
 * axe-core's browser script, run in a page to check it: evaluated (as the test's own code) rather
 * than added as a <script>, which the dashboard's Content-Security-Policy rightly refuses.
 */
const AXE_SCRIPT = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `Chromium not found at ${CHROMIUM}: install it with \`apt-get install -y chromium\` (.ci/run does)`,
    );
  }
  return chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox"] });
}

/**
 * Dashboard users made with `payments users create --password-file` (the file in `dir` holds
 * PASSWORD), as an operator would: [email, role, merchant id (none for an admin)].
 */
export async function createUsersWithPassword(
  env: Record<string, string>,
  dir: string,
  users: ReadonlyArray<readonly [string, string, string | undefined]>,
): Promise<void> {
  const passwordFile = join(dir, "password.txt");
  writeFileSync(passwordFile, `${PASSWORD}\n`);
  for (const [email, role, merchant] of users) {
    const args = ["users", "create", "--email", email, "--role", role, ...(merchant ? ["--merchant", merchant] : [])];
    const result = await runCli([...args, "--password-file", passwordFile, "--json"], env);
    if (result.code !== 0) throw new Error(`users create ${email}: ${result.stderr}`);
  }
}

/** An accessibility problem axe found, as a line for an assertion's message. */
export interface AxeViolation {
  id: string;
  impact: string | null | undefined;
  help: string;
  targets: string[];
}

/**
 * The browser side of a dashboard test: pages of the service at `url` in fresh contexts, screenshots
 * into a new folder (printed as `what screenshots: DIR`), accessibility checks with axe-core.
 */
export class DashboardBrowser {
  readonly shots: string;

  constructor(
    private readonly browser: () => Browser | undefined,
    private readonly url: () => string,
    what: string,
  ) {
    this.shots = mkdtempSync(join(tmpdir(), "mp-dashboard-shots-"));
    process.stdout.write(`${what} screenshots: ${this.shots}\n`);
  }

  /** The full page as it is now, into the screenshot folder. */
  async shot(page: Page, name: string): Promise<void> {
    await page.screenshot({ path: join(this.shots, `${name}.png`), fullPage: true });
  }

  /** The page at both sizes (`name`-desktop, `name`-phone), back at the size it had. */
  async shotBoth(page: Page, name: string): Promise<void> {
    const size = page.viewportSize() ?? DESKTOP;
    await page.setViewportSize(DESKTOP);
    await this.shot(page, `${name}-desktop`);
    await page.setViewportSize(PHONE);
    await this.shot(page, `${name}-phone`);
    await page.setViewportSize(size);
  }

  /** A look at the page as it is now: its screenshot `name`, and no serious accessibility violation. */
  async shotAndCheck(page: Page, name: string): Promise<void> {
    await this.shot(page, name);
    await this.expectAccessible(page);
  }

  /** shotAndCheck at both sizes (`name`-desktop, `name`-phone); the page is left at desktop size. */
  async shotAndCheckAtBothSizes(page: Page, name: string): Promise<void> {
    await this.shotBoth(page, name);
    await this.expectAccessibleAtBothSizes(page);
  }

  /** A fresh browser context (its own cookies) at desktop size with the clipboard allowed, and a page in it. */
  async newPage(): Promise<{ context: BrowserContext; page: Page }> {
    const browser = this.browser();
    if (!browser) throw new Error("no browser");
    const context = await browser.newContext({ viewport: DESKTOP, locale: "en-US" });
    await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: this.url() });
    return { context, page: await context.newPage() };
  }

  /** Signs in through the sign-in page, as a person would. */
  async signIn(page: Page, email: string, password = PASSWORD): Promise<void> {
    await page.goto(`${this.url()}/dashboard/sign-in`);
    await page.getByLabel("Email").fill(email);
    await page.getByLabel("Password").fill(password);
    await page.getByRole("button", { name: "Sign in" }).click();
  }

  /** A fresh page (its own context) signed in as `email`, once the page it lands on shows `landing`. */
  async signedInPage(
    email: string,
    landing: { name: string; level?: number } = { name: "Overview" },
  ): Promise<{ context: BrowserContext; page: Page }> {
    const opened = await this.newPage();
    await this.signIn(opened.page, email);
    await opened.page.getByRole("heading", landing).waitFor();
    return opened;
  }

  /** Goes to the dashboard's `path` (after /dashboard) and waits for its level-1 heading `heading`. */
  async openAt(page: Page, path: string, heading: string): Promise<void> {
    await page.goto(`${this.url()}/dashboard${path}`);
    await page.getByRole("heading", { name: heading, level: 1 }).waitFor();
  }

  /** Opens the page `name` from the nav: its level-1 heading of that name appears and takes the focus. */
  async openFromNav(page: Page, name: string): Promise<void> {
    await page.getByRole("navigation", { name: "Dashboard" }).getByRole("link", { name, exact: true }).click();
    await page.getByRole("heading", { name, level: 1 }).waitFor();
    // Waited for in the page, not with vitest's expect: the bench scripts load this file outside vitest.
    await page.waitForFunction(`document.activeElement?.textContent === ${JSON.stringify(name)}`, undefined, {
      timeout: BROWSER_TIMEOUT_MS,
    });
  }

  /**
   * The page's serious and critical accessibility violations by axe-core (WCAG 2.x A and AA rules):
   * a test expects none. Minor and moderate ones are left to review.
   */
  async seriousViolations(page: Page): Promise<AxeViolation[]> {
    await page.evaluate(AXE_SCRIPT);
    // A string, not a function: this file is type-checked without the DOM library.
    const results = (await page.evaluate(
      "axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } })",
    )) as AxeResults;
    return results.violations
      .filter((v) => v.impact === "serious" || v.impact === "critical")
      .map((v) => ({ id: v.id, impact: v.impact, help: v.help, targets: v.nodes.map((n) => String(n.target)) }));
  }

  /**
   * Throws when axe finds a serious or critical violation at the page's present size (named with
   * its width). No vitest import: the bench scripts load this file.
   */
  async expectAccessible(page: Page): Promise<void> {
    const violations = await this.seriousViolations(page);
    if (violations.length > 0) {
      const width = page.viewportSize()?.width ?? DESKTOP.width;
      throw new Error(`axe at ${width} px: ${JSON.stringify(violations, null, 2)}`);
    }
  }

  /** expectAccessible at 1280 px and at 390 px; the page is left at desktop size. */
  async expectAccessibleAtBothSizes(page: Page): Promise<void> {
    for (const size of [DESKTOP, PHONE]) {
      await page.setViewportSize(size);
      await this.expectAccessible(page);
    }
    await page.setViewportSize(DESKTOP);
  }

  /** fetch from inside the page: the browser's own cookie, and the CSRF header only when asked. */
  fetchInPage(page: Page, method: string, path: string, withCsrf: boolean, json?: unknown): Promise<number> {
    return page.evaluate(
      async ({ method, path, withCsrf, json }) => {
        const session = (await fetch("/dashboard/api/session").then((r) => r.json())) as { csrf_token: string };
        const headers: Record<string, string> = withCsrf ? { "x-csrf-token": session.csrf_token } : {};
        if (json !== undefined) headers["content-type"] = "application/json";
        const res = await fetch(path, {
          method,
          headers,
          ...(json !== undefined ? { body: JSON.stringify(json) } : {}),
        });
        return res.status;
      },
      { method, path, withCsrf, json },
    );
  }
}
