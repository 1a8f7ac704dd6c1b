import { userInfo } from "node:os";
import type { AppConfig, Logger } from "@mp/core";
import { ConfigError } from "@mp/core/errors";
import type { Database } from "@mp/db";
import { type Command, InvalidArgumentError, Option } from "commander";

/**
 * The configuration and a one-shot command's logger: the command prints its answer (JSON, CSV, a
 * report) on stdout, its logs go to stderr.
 */
export async function loadCliConfig(): Promise<{ config: AppConfig; logger: Logger }> {
  // Loaded here, not at the top: `payments --help` and argument errors never load the
  // configuration's schemas (zod) or the logger (pino).
  const { createLogger, loadConfig } = await import("@mp/core");
  const config = loadConfig();
  return {
    config,
    logger: createLogger({ level: config.logLevel === "info" ? "warn" : config.logLevel, stderr: true }),
  };
}

/** Runs `fn` on the configured, migrated database, closed afterwards whatever happens. */
export async function withDatabase<T>(fn: (db: Database, config: AppConfig, logger: Logger) => Promise<T>): Promise<T> {
  const { config, logger } = await loadCliConfig();
  // Loaded here, not at the top: `payments --help` and argument errors never open a database.
  const { openMigratedDatabase } = await import("../runtime.ts");
  const { db } = await openMigratedDatabase(config, logger);
  try {
    return await fn(db, config, logger);
  } finally {
    await db.close();
  }
}

/** A command's date option (`--from`, `--to`) as a Date; a ConfigError naming the option otherwise. */
export function parseDate(setting: string, value: string): Date {
  const date = new Date(value);
  if (Number.isNaN(date.getTime()))
    throw new ConfigError(setting, "must be an ISO date, e.g. 2026-11-01 or 2026-11-01T00:00:00Z");
  return date;
}

/** One JSON value on a line of stdout (`indent` for an answer meant for a person's eyes). */
export function printJson(value: unknown, indent?: number): void {
  process.stdout.write(`${JSON.stringify(value, null, indent)}\n`);
}

/** A `--json` command's line: `value` as JSON, or `text` for a person. */
export function print(json: boolean | undefined, value: unknown, text: string): void {
  if (json) printJson(value);
  else process.stdout.write(`${text}\n`);
}

/**
 * A show command's answer: `value` as JSON with `--json`, else its text lines; when there is none,
 * `<what> <id> not found` on stderr and exit code 1.
 */
export function printFound<T>(
  json: boolean | undefined,
  value: T | undefined,
  notFound: { what: string; id: string },
  lines: (value: T) => string[],
): void {
  if (value === undefined) {
    process.stderr.write(`${notFound.what} ${notFound.id} not found\n`);
    process.exitCode = 1;
  } else if (json) printJson(value);
  else process.stdout.write(`${lines(value).join("\n")}\n`);
}

/** A list command's answer: with `--json` one JSON object per line, else one text line per item and the count. */
export function printList<T>(
  json: boolean | undefined,
  items: readonly T[],
  show: { json: (item: T) => unknown; text: (item: T) => string; counted: string },
): void {
  for (const item of items) print(json, show.json(item), show.text(item));
  if (!json) process.stdout.write(`${items.length} ${show.counted}\n`);
}

/**
 * A list command under `parent`: `--json` for one JSON object per line, else text lines and the
 * count (what `run` prints with printList).
 */
export function addListCommand(
  parent: Command,
  name: string,
  description: string,
  run: (json: boolean | undefined) => Promise<void>,
): Command {
  return parent
    .command(name)
    .description(description)
    .option("--json", "one JSON object per line")
    .action((options: { json?: boolean }) => run(options.json));
}

/** What an operator's list of merchants' records is filtered by (`--merchant`, `--status`, `--limit`). */
export interface MerchantRecordsFilter<S extends string = string> {
  merchantId: string | undefined;
  status: S | undefined;
  limit: number;
}

/**
 * A `list` command under `parent` of records of every merchant or one, newest first: `--merchant`,
 * `--status` (one of `statuses`), `--limit` (1..1000, 50 by default) and `--json` (`json` says what
 * each line holds); `list` loads its modules itself, as addShowCommand's `find`.
 */
export function addMerchantRecordsList<T, S extends string>(
  parent: Command,
  list: {
    description: string;
    statuses: readonly S[];
    json: string;
    find: (db: Database, config: AppConfig, filter: MerchantRecordsFilter<S>) => Promise<readonly T[]>;
    text: (item: T) => string;
    counted: string;
  },
): Command {
  return (
    parent
      .command("list")
      .description(list.description)
      .option("--merchant <id>", "only this merchant's", uuidOf("merchant"))
      .addOption(new Option("--status <status>", "only those in this status").choices(list.statuses))
      .option("--limit <n>", "how many (1..1000)", "50")
      .option("--json", list.json)
      // commander checks --status against `statuses` (choices) before the action runs.
      .action(async (options: { merchant?: string; status?: S; limit: string; json?: boolean }) => {
        const filter = { merchantId: options.merchant, status: options.status, limit: listLimit(options.limit) };
        const items = await withDatabase((db, config) => list.find(db, config, filter));
        printList(options.json, items, { json: (item) => item, text: list.text, counted: list.counted });
      })
  );
}

/**
 * A `show <id>` command under `parent` for one `what` (its id a UUID): `--json` prints it as one
 * JSON object, else the text `lines`; a missing one says so on stderr and exits 1 (printFound).
 * `find` loads its modules itself, so `--help` and argument errors load none.
 */
export function addShowCommand<T>(
  parent: Command,
  show: {
    what: string;
    description: string;
    json: string;
    find: (db: Database, config: AppConfig, id: string) => Promise<T | undefined>;
    lines: (value: T) => string[];
  },
): Command {
  return parent
    .command("show")
    .description(show.description)
    .argument("<id>", `the ${show.what}'s id`, uuidOf(show.what))
    .option("--json", show.json)
    .action(async (id: string, options: { json?: boolean }) => {
      const found = await withDatabase((db, config) => show.find(db, config, id));
      printFound(options.json, found, { what: show.what, id }, show.lines);
    });
}

/** `--operator <name>`, recorded in the audit log; the login name by default. */
export function operatorOption(what = "acts"): Option {
  return new Option("--operator <name>", `who ${what} (recorded in the audit log)`).default(userInfo().username);
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** An argument or option parser taking the id of a `what` (a UUID); commander reports what it throws. */
export function uuidOf(what: string): (value: string) => string {
  return (value) => {
    if (!UUID.test(value)) throw new InvalidArgumentError(`must be a ${what} id (UUID)`);
    return value;
  };
}

/** A list command's `--limit`: a whole number 1..1000. */
export function listLimit(value: string): number {
  const limit = Number(value);
  if (!Number.isInteger(limit) || limit < 1 || limit > 1000) throw new ConfigError("--limit", "must be 1..1000");
  return limit;
}
