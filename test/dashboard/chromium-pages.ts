import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core";

/**
 * Debian's chromium (`apt-get install -y chromium`, which .ci/run does): Playwright's own browser
 * downloads do not work here. A missing browser fails the test, never skips it.
 */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
export const PASSWORD = "correct horse battery staple";

export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `Chromium not found at ${CHROMIUM}: install it with \`apt-get install -y chromium\` (.ci/run does)`,
    );
  }
  return chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox"] });
}

/** A fresh browser context (its own cookies) at desktop size, and a page in it. */
export async function newPage(browser: Browser | undefined): Promise<{ context: BrowserContext; page: Page }> {
  if (!browser) throw new Error("no browser");
  const context = await browser.newContext({ viewport: { width: 1200, height: 800 } });
  return { context, page: await context.newPage() };
}

/** Signs in through the sign-in page, as a person would. */
export async function signIn(page: Page, url: string, email: string, password = PASSWORD): Promise<void> {
  await page.goto(`${url}/dashboard/sign-in`);
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Sign in" }).click();
}

/** A new folder for a test file's screenshots (its path is printed), and the full-page shot of a page into it. */
export function screenshotFolder(prefix: string, what: string): (page: Page, name: string) => Promise<void> {
  const shots = mkdtempSync(join(tmpdir(), prefix));
  process.stdout.write(`${what} screenshots: ${shots}\n`);
  return async (page, name) => {
    await page.screenshot({ path: join(shots, `${name}.png`), fullPage: true });
  };
}

/** `payments users create` with a password file: a dashboard user who can sign in at once. */
export function userCreateArgs(email: string, role: string, merchant: string | undefined, passwordFile: string) {
  return [
    "users",
    "create",
    "--email",
    email,
    "--role",
    role,
    ...(merchant ? ["--merchant", merchant] : []),
    "--password-file",
    passwordFile,
    "--json",
  ];
}
