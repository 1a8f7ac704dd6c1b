import { readFileSync } from "node:fs";
import type { z } from "zod";
import { ConfigError } from "./errors.ts";

/**
 * A JSON file named by a setting (CHAINS_CONFIG, RATES_FEEDS_FILE, RATES_BOUNDS_FILE), read and
 * validated at start: unreadable, not JSON or of another shape is one ConfigError line naming the
 * setting and the path inside the file at fault.
 */
export function loadJsonConfigFile<T>(setting: string, path: string, schema: z.ZodType<T>, what = "content"): T {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch {
    throw new ConfigError(setting, `cannot read file ${path}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new ConfigError(setting, `file ${path} is not valid JSON`);
  }
  return parseConfigValue(setting, json, schema, what);
}

/** `value` checked against `schema`; the first problem is one ConfigError line with its path. */
export function parseConfigValue<T>(setting: string, value: unknown, schema: z.ZodType<T>, what: string): T {
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue ? issue.path.join(".") : "";
    throw new ConfigError(setting, `invalid ${what} at ${where || "(root)"}: ${issue?.message ?? "invalid"}`);
  }
  return parsed.data;
}
