import type { Command } from "commander";
import { operatorOption, parseDate, print, printJson, withDatabase } from "./cli-support.ts";

/**
 * `payments transfers report`: finance's view of transfers by state (the same as transfersReport);
 * `payments transfers beneficiary`: a transfer's travel rule data, opened for an operator and audited.
 */
export function addTransferCommands(program: Command): void {
  const transfers = program.command("transfers").description("Finance and operators: transfers");
  addBeneficiaryCommand(transfers);
  transfers
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

function addBeneficiaryCommand(transfers: Command): void {
  transfers
    .command("beneficiary")
    .description(
      "Show a crypto transfer's travel rule data (its beneficiary; decrypted for this display only, the reading audited)",
    )
    .argument("<transfer-id>")
    .addOption(operatorOption("reads it"))
    .option("--json", "one JSON object")
    .action(async (transferId: string, options: { operator: string; json?: boolean }) => {
      const [{ openTransferBeneficiary, transferBeneficiaryJson }, { loadEncryptionKeyring }] = await Promise.all([
        import("@mp/transfers"),
        import("@mp/encryption"),
      ]);
      const view = await withDatabase((db, config, logger) =>
        openTransferBeneficiary(db, loadEncryptionKeyring(config, { logger }), transferId, options.operator),
      );
      const b = view.beneficiary;
      const who =
        b === null
          ? "no beneficiary on file (below the travel rule threshold)"
          : b.type === "INDIVIDUAL"
            ? `INDIVIDUAL ${b.name}`
            : `BUSINESS ${b.name} (legal name ${b.legal_name}, ${b.country})`;
      print(
        options.json,
        transferBeneficiaryJson(view),
        `transfer ${view.transferId} merchant ${view.merchantId} payout ${view.destinationUsd ?? "-"} USD: ${who}`,
      );
    });
}
