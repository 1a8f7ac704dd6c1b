import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core";
import { runCli } from "../cli/run-cli.ts";

/**
 * Debian's chromium (`apt-get install -y chromium`, which .ci/run does): Playwright's own browser
 * downloads do not work here. A missing browser fails the test, never skips it.
 */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
export const BROWSER_TIMEOUT_MS = 240_000;
export const PASSWORD = "correct horse battery staple";

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
 * PASSWORD), as an operator would: [email, role, merchant id].
 */
export async function createUsersWithPassword(
  env: Record<string, string>,
  dir: string,
  users: ReadonlyArray<readonly [string, string, string]>,
): Promise<void> {
  const passwordFile = join(dir, "password.txt");
  writeFileSync(passwordFile, `${PASSWORD}\n`);
  for (const [email, role, merchant] of users) {
    const args = ["users", "create", "--email", email, "--role", role, "--merchant", merchant];
    const result = await runCli([...args, "--password-file", passwordFile, "--json"], env);
    if (result.code !== 0) throw new Error(`users create ${email}: ${result.stderr}`);
  }
}

/** The browser side of a dashboard test: pages of the service at `url`, screenshots into `shots`. */
export class DashboardBrowser {
  constructor(
    private readonly browser: () => Browser | undefined,
    private readonly url: () => string,
    private readonly shots: string,
  ) {}

  async shot(page: Page, name: string): Promise<void> {
    await page.screenshot({ path: join(this.shots, `${name}.png`), fullPage: true });
  }

  async newPage(): Promise<{ context: BrowserContext; page: Page }> {
    const browser = this.browser();
    if (!browser) throw new Error("no browser");
    const context = await browser.newContext({ viewport: { width: 1200, height: 800 } });
    await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: this.url() });
    return { context, page: await context.newPage() };
  }

  async signIn(page: Page, email: string, password = PASSWORD): Promise<void> {
    await page.goto(`${this.url()}/dashboard/sign-in`);
    await page.getByLabel("Email").fill(email);
    await page.getByLabel("Password").fill(password);
    await page.getByRole("button", { name: "Sign in" }).click();
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
