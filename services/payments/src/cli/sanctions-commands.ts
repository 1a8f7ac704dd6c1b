import { ConfigError } from "@mp/core/errors";
import type { Command } from "commander";
import { loadCliConfig, print, printList, withDatabase } from "./cli-support.ts";

// Loaded by the actions only: `payments --help` never reads a list or loads the providers.
const providersModule = () => import("@mp/providers");

/** sanctions matches (the operators' list of matches) and sanctions status (the list loaded). */
export function addSanctionsCommands(program: Command): void {
  const sanctions = program
    .command("sanctions")
    .description("Sanctions screening: recorded matches, the list in use (docs/sanctions.md)");
  sanctions
    .command("matches")
    .description(
      "List sanctions matches, latest first: deposits held (sanctions_match; release or return them with payments deposits) and refused destinations",
    )
    .option("--context <context>", "only deposit, quote, payout or treasury_send")
    .option("--limit <n>", "at most this many", "100")
    .option("--json", "one JSON object per line")
    .action(async (options: { context?: string; limit: string; json?: boolean }) => {
      const { listSanctionsMatches, SANCTIONS_MATCH_CONTEXTS, sanctionsMatchJson } = await providersModule();
      const context = SANCTIONS_MATCH_CONTEXTS.find((c) => c === options.context);
      if (options.context !== undefined && context === undefined) {
        throw new ConfigError("--context", `one of ${SANCTIONS_MATCH_CONTEXTS.join(", ")}`);
      }
      const limit = Number(options.limit);
      if (!Number.isInteger(limit) || limit < 1 || limit > 10_000)
        throw new ConfigError("--limit", "a whole number from 1 to 10000");
      const matches = await withDatabase((db) => listSanctionsMatches(db, { ...(context ? { context } : {}), limit }));
      printList(options.json, matches, {
        json: sanctionsMatchJson,
        text: (m) =>
          `${m.createdAt.toISOString()} ${m.context} ${m.chain ?? "-"} ${m.address} list=${m.list} merchant=${m.merchantId ?? "-"} ref=${m.reference ?? "-"}`,
        counted: "matches",
      });
    });
  sanctions
    .command("status")
    .description("Load the configured list as the service would and say what it holds (or that screening is off)")
    .option("--json", "one JSON object")
    .action(async (options: { json?: boolean }) => {
      const { openSanctionsScreening } = await import("../sanctions-screening.ts");
      const { config, logger } = await loadCliConfig();
      const described = (await openSanctionsScreening(config, logger)).describe();
      print(
        options.json,
        described,
        described.mode === "off"
          ? "screening off (SANCTIONS_SCREENING=off)"
          : `screening on: ${described.addresses} addresses from ${described.lists.join(", ") || "no file (the sandbox's magic address only)"}`,
      );
    });
}
