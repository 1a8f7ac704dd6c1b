import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { CONFIG_SETTINGS } from "@mp/core";
import { OLD_KEYS_FILE_SETTING, OLD_KEYS_SETTING } from "@mp/encryption";
import { EVENT_TYPES } from "@mp/events";
import { sweepConfigFromEnv } from "@mp/treasury";
import { describe, expect, it } from "vitest";
import { buildCli } from "../../services/payments/src/cli/build-cli.ts";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const doc = (path: string) => readFileSync(`${ROOT}${path}`, "utf8");

/** The names a reader of `env` asks for (a Proxy answering every read with "unset"). */
function settingsRead(read: (env: NodeJS.ProcessEnv) => unknown): string[] {
  const names = new Set<string>();
  const env = new Proxy({} as NodeJS.ProcessEnv, {
    get: (_target, key) => {
      if (typeof key === "string") names.add(key);
      return undefined;
    },
  });
  read(env);
  return [...names];
}

interface CommandNode {
  name(): string;
  readonly commands: readonly CommandNode[];
}
/** Every runnable command of the CLI as its words (`["treasury", "send"]`). */
const commandPaths = (command: CommandNode, path: string[] = []): string[][] =>
  command.commands.length === 0 ? [path] : command.commands.flatMap((sub) => commandPaths(sub, [...path, sub.name()]));

/**
 * The docs are the reference of what the service reads and does: a setting, an event type or a
 * command added without its line in docs/ fails here, naming it.
 */
describe("the docs name everything a reader looks up", () => {
  it("docs/configuration.md names every setting the service reads", () => {
    const settings = [
      ...CONFIG_SETTINGS,
      ...settingsRead((env) => sweepConfigFromEnv(env, "sandbox")),
      OLD_KEYS_SETTING,
      OLD_KEYS_FILE_SETTING,
    ];
    expect(settings.length).toBeGreaterThan(40);
    expect(settings).toContain("SWEEP_THRESHOLDS");
    const reference = doc("docs/configuration.md");
    const missing = settings.filter((setting) => !reference.includes(`\`${setting}\``));
    expect(missing).toEqual([]);
  });

  it("docs/events.md names every event type", () => {
    const events = doc("docs/events.md");
    expect(EVENT_TYPES.filter((type) => !events.includes(`\`${type}\``))).toEqual([]);
  });

  it("docs/cli.md shows every command of `payments`", () => {
    const paths = commandPaths(buildCli() as unknown as CommandNode).map((words) => words.join(" "));
    expect(paths).toContain("treasury send");
    const cli = doc("docs/cli.md");
    expect(paths.filter((path) => !cli.includes(`payments ${path}`))).toEqual([]);
  });

  it("the README links every page of docs/", () => {
    const readme = doc("README.md");
    const pages = readdirSync(`${ROOT}docs`).filter((name) => name.endsWith(".md"));
    expect(pages.length).toBeGreaterThan(10);
    expect(pages.filter((page) => !readme.includes(`](docs/${page})`))).toEqual([]);
  });
});
