import type { Command } from "commander";
import { parseDate, printJson, withDatabase } from "./cli-support.ts";

/** `payments transfers report`: finance's view of transfers by state (the same as transfersReport). */
export function addTransferCommands(program: Command): void {
  program
    .command("transfers")
    .description("Finance: transfers")
    .command("report")
    .description("Transfers created in [from, to) by state: count and totals (source, fee, destination) per currency")
    .option("--from <date>", "ISO date or timestamp (inclusive)")
    .option("--to <date>", "ISO date or timestamp (exclusive)")
    .option("--merchant <id>", "only this merchant's transfers")
    .option("--json", "the report as one JSON object")
    .action(async (options: { from?: string; to?: string; merchant?: string; json?: boolean }) => {
      const { transfersReport } = await import("@mp/transfers");
      const report = await withDatabase((db) =>
        transfersReport(db, {
          from: options.from ? parseDate("--from", options.from) : undefined,
          to: options.to ? parseDate("--to", options.to) : undefined,
          merchantId: options.merchant,
        }),
      );
      if (options.json) {
        printJson(report);
        return;
      }
      for (const state of report.states) {
        process.stdout.write(`${state.status}: ${state.count}\n`);
        for (const t of state.totals) {
          process.stdout.write(
            `  ${t.source_currency} -> ${t.destination_currency}: ${t.count} transfers, source ${t.source_amount} ${t.source_currency}, fee ${t.fee_amount} ${t.source_currency}, destination ${t.destination_amount} ${t.destination_currency}\n`,
          );
        }
      }
      process.stdout.write(`${report.count} transfers\n`);
    });
}
