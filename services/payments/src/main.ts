#!/usr/bin/env -S npx tsx
import { ConfigError } from "@mp/core/errors";
import { buildCli } from "./cli/build-cli.ts";

/**
 * The `payments` command. Configuration errors end the process with one line naming the setting
 * (never a stack trace, never a secret value).
 */
try {
  await buildCli().parseAsync(process.argv);
} catch (error) {
  if (error instanceof ConfigError) {
    process.stderr.write(`payments: configuration error: ${error.message}\n`);
  } else {
    const message = error instanceof Error ? error.message : String(error);
    process.stderr.write(`payments: ${message}\n`);
  }
  process.exit(1);
}
