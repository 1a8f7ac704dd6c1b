import { readFileSync } from "node:fs";
import { basename } from "node:path";
import {
  assignStatementLine,
  importBankStatement,
  listUnmatchedStatementLines,
  returnStatementLine,
  statementImportJson,
} from "@mp/api";
import { ConfigError } from "@mp/core";
import { type Command, Option } from "commander";
import { addListCommand, operatorOption, printJson, printList, withDatabase } from "./cli-support.ts";

/** `payments bank import|unmatched|assign|return`: finance's side of BANKING_PROVIDER=statement. */
export function addBankCommands(program: Command): void {
  const bank = program.command("bank").description("Finance: bank statements (BANKING_PROVIDER=statement)");

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
      printJson(statementImportJson(result));
    });

  addListCommand(bank, "unmatched", "List statement lines waiting for finance (assign or return)", async (json) => {
    const lines = await withDatabase((db) => listUnmatchedStatementLines(db));
    printList(json, lines, {
      json: (line) => line,
      text: (line) =>
        `${line.id} ${line.bookingDate} ${line.direction} ${line.amount} ${line.currency} account=${line.account} ref=${line.reference ?? "-"}: ${line.reason}`,
      counted: "unmatched lines",
    });
  });

  // An operator's decision on one unmatched line: the line and who decides, then what is decided.
  const lineDecision = (name: string, description: string) =>
    bank
      .command(name)
      .description(description)
      .requiredOption("--line <id>", "statement line id")
      .addOption(operatorOption());

  lineDecision("assign", "Credit an unmatched USD credit line to a virtual account")
    .requiredOption("--virtual-account <id>", "virtual account id")
    .action(async (options: { line: string; virtualAccount: string; operator: string }) => {
      printJson(
        await withDatabase((db) =>
          assignStatementLine(db, {
            lineId: options.line,
            virtualAccountId: options.virtualAccount,
            operator: options.operator,
          }),
        ),
      );
    });

  lineDecision("return", "Record that an unmatched line is sent back to the payer")
    .requiredOption("--reason <text>", "why")
    .action(async (options: { line: string; reason: string; operator: string }) => {
      printJson(
        await withDatabase((db) =>
          returnStatementLine(db, { lineId: options.line, reason: options.reason, operator: options.operator }),
        ),
      );
    });
}
