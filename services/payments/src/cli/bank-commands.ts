import { readFileSync } from "node:fs";
import { userInfo } from "node:os";
import { basename } from "node:path";
import { assignStatementLine, importBankStatement, listUnmatchedStatementLines, returnStatementLine } from "@mp/api";
import { type AppConfig, ConfigError, createLogger, type Logger, loadConfig } from "@mp/core";
import type { Database } from "@mp/db";
import { type Command, Option } from "commander";
import { openMigratedDatabase } from "../runtime.ts";

export async function withDatabase<T>(fn: (db: Database) => Promise<T>): Promise<T> {
  const config: AppConfig = loadConfig();
  const logger: Logger = createLogger({
    level: config.logLevel === "info" ? "warn" : config.logLevel,
    stderr: true,
  });
  const { db } = await openMigratedDatabase(config, logger);
  try {
    return await fn(db);
  } finally {
    await db.close();
  }
}

/** `payments bank import|unmatched|assign|return`: finance's side of BANKING_PROVIDER=statement. */
export function addBankCommands(program: Command): void {
  const bank = program.command("bank").description("Finance: bank statements (BANKING_PROVIDER=statement)");
  const operatorOption = () =>
    new Option("--operator <name>", "who acts (recorded in the audit log)").default(userInfo().username);

  bank
    .command("import")
    .description("Import a bank statement (ISO 20022 camt.053 XML or CSV): credit matched lines once, keep the rest")
    .argument("<file>")
    .addOption(new Option("--format <format>", "default: XML is camt053, else csv").choices(["camt053", "csv"]))
    .addOption(operatorOption())
    .action(async (file: string, options: { format?: "camt053" | "csv"; operator: string }) => {
      let content: string;
      try {
        content = readFileSync(file, "utf8");
      } catch {
        throw new ConfigError("FILE", `cannot read ${file}`);
      }
      const result = await withDatabase((db) =>
        importBankStatement(db, {
          fileName: basename(file),
          content,
          operator: options.operator,
          ...(options.format ? { format: options.format } : {}),
        }),
      );
      process.stdout.write(
        `${JSON.stringify({
          import_id: result.importId,
          format: result.format,
          lines: result.lines,
          credited: result.credited,
          unmatched: result.unmatched,
          already_imported: result.alreadyImported,
        })}\n`,
      );
    });

  bank
    .command("unmatched")
    .description("List statement lines waiting for finance (assign or return)")
    .option("--json", "one JSON object per line")
    .action(async (options: { json?: boolean }) => {
      const lines = await withDatabase((db) => listUnmatchedStatementLines(db));
      for (const line of lines) {
        process.stdout.write(
          options.json
            ? `${JSON.stringify(line)}\n`
            : `${line.id} ${line.bookingDate} ${line.direction} ${line.amount} ${line.currency} account=${line.account} ref=${line.reference ?? "-"}: ${line.reason}\n`,
        );
      }
      if (!options.json) process.stdout.write(`${lines.length} unmatched lines\n`);
    });

  bank
    .command("assign")
    .description("Credit an unmatched USD credit line to a virtual account")
    .requiredOption("--line <id>", "statement line id")
    .requiredOption("--virtual-account <id>", "virtual account id")
    .addOption(operatorOption())
    .action(async (options: { line: string; virtualAccount: string; operator: string }) => {
      const line = await withDatabase((db) =>
        assignStatementLine(db, {
          lineId: options.line,
          virtualAccountId: options.virtualAccount,
          operator: options.operator,
        }),
      );
      process.stdout.write(`${JSON.stringify(line)}\n`);
    });

  bank
    .command("return")
    .description("Record that an unmatched line is sent back to the payer")
    .requiredOption("--line <id>", "statement line id")
    .requiredOption("--reason <text>", "why")
    .addOption(operatorOption())
    .action(async (options: { line: string; reason: string; operator: string }) => {
      const line = await withDatabase((db) =>
        returnStatementLine(db, { lineId: options.line, reason: options.reason, operator: options.operator }),
      );
      process.stdout.write(`${JSON.stringify(line)}\n`);
    });
}
