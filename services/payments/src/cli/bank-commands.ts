import { readFileSync, writeFileSync } from "node:fs";
import { basename } from "node:path";
import { ConfigError } from "@mp/core/errors";
import { type Command, Option } from "commander";
import { addListCommand, operatorOption, printJson, printList, uuidOf, withDatabase } from "./cli-support.ts";

// Each action imports what it runs: `payments --help` and every other command never load them.
// The statements' module, not @mp/api's index (the HTTP app and every route).
const apiModule = () => import("@mp/api/bank-statements");
const transfersModule = () => import("@mp/transfers");

/**
 * `payments bank import|unmatched|assign|return|returns|return-send|return-close|payouts export`: finance's side of
 * BANKING_PROVIDER=statement.
 */
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
      const [{ importBankStatement, statementImportJson }, { loadEncryptionKeyring }] = await Promise.all([
        apiModule(),
        import("@mp/encryption"),
      ]);
      const result = await withDatabase((db, config, logger) =>
        importBankStatement(db, {
          fileName: basename(file),
          content,
          operator: options.operator,
          // The payers' accounts are sealed on their lines: where bank returns pay back.
          keyring: loadEncryptionKeyring(config, { logger }),
          ...(options.format ? { format: options.format } : {}),
        }),
      );
      printJson(statementImportJson(result));
    });

  addListCommand(bank, "unmatched", "List statement lines waiting for finance (assign or return)", async (json) => {
    const { listUnmatchedStatementLines } = await apiModule();
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

  lineDecision(
    "assign",
    "Credit an unmatched USD credit line to a virtual account, or to a transfer's bank funding intent (it funds the transfer)",
  )
    .option("--virtual-account <id>", "virtual account id")
    .option("--intent <id>", "a BANK_TRANSFER funding intent's id (GET /v1/transfers/{id}/funding: intent.id)")
    .action(async (options: { line: string; virtualAccount?: string; intent?: string; operator: string }) => {
      if ((options.virtualAccount === undefined) === (options.intent === undefined)) {
        throw new ConfigError("--virtual-account", "give exactly one of --virtual-account and --intent");
      }
      const target = options.intent ? { intentId: options.intent } : { virtualAccountId: options.virtualAccount ?? "" };
      const { assignStatementLine } = await apiModule();
      printJson(
        await withDatabase((db) =>
          assignStatementLine(db, { lineId: options.line, operator: options.operator, ...target }),
        ),
      );
    });

  lineDecision(
    "return",
    "Send an unmatched line back to its payer: a USD credit by bank, to the account the line names (the worker pays it)",
  )
    .requiredOption("--reason <text>", "why")
    .action(async (options: { line: string; reason: string; operator: string }) => {
      const [{ returnStatementLine }, { bankReturnJson }] = await Promise.all([apiModule(), transfersModule()]);
      const { bankReturn, ...line } = await withDatabase((db) =>
        returnStatementLine(db, { lineId: options.line, reason: options.reason, operator: options.operator }),
      );
      printJson({ ...line, bank_return: bankReturn ? bankReturnJson(bankReturn) : null });
    });

  bank
    .command("returns")
    .description("List bank returns (money sent back to payers by bank), newest first")
    .addOption(
      new Option("--state <state>", "only these").choices(["payable", "sending", "returned", "failed", "closed"]),
    )
    .option("--json", "one JSON object per line")
    .action(async (options: { state?: "payable" | "sending" | "returned" | "failed" | "closed"; json?: boolean }) => {
      const { listBankReturns, bankReturnJson } = await transfersModule();
      const returns = await withDatabase((db) => listBankReturns(db, { state: options.state }));
      printList(options.json, returns, {
        json: bankReturnJson,
        text: (r) =>
          `${r.id} ${r.origin} ${r.state} ${r.amount} USD line=${r.statementLineId ?? "-"} transfer=${r.transferId ?? "-"}${r.reason ? `: ${r.reason}` : ""}`,
        counted: "bank returns",
      });
    });

  // An operator's decision on one stuck bank return (payable or failed: nothing asked of the bank).
  const returnDecision = (name: string, description: string) =>
    bank
      .command(name)
      .description(description)
      .requiredOption("--return <id>", "bank return id (payments bank returns)", uuidOf("bank return"))
      .addOption(operatorOption());

  returnDecision(
    "return-send",
    "Send a payable or failed bank return (again), to the account given (sealed) or the one it names; the worker pays it",
  )
    .option("--account <number>", "the payer's US account number (with --routing and --name)")
    .option("--routing <aba>", "the payer's bank's ABA routing number")
    .option("--name <holder>", "the account holder's name")
    .action(
      async (options: { return: string; operator: string; account?: string; routing?: string; name?: string }) => {
        const given = [options.account, options.routing, options.name].filter((v) => v !== undefined).length;
        if (given !== 0 && given !== 3) {
          throw new ConfigError("--account", "give --account, --routing and --name together (or none of them)");
        }
        const account =
          options.account && options.routing && options.name
            ? { accountNumber: options.account, routingNumber: options.routing, name: options.name }
            : undefined;
        const [{ sendBankReturnAgain, bankReturnJson }, { loadEncryptionKeyring }] = await Promise.all([
          transfersModule(),
          import("@mp/encryption"),
        ]);
        const sent = await withDatabase((db, config, logger) =>
          sendBankReturnAgain(db, loadEncryptionKeyring(config, { logger }), {
            returnId: options.return,
            operator: options.operator,
            account,
          }),
        );
        printJson(bankReturnJson(sent));
      },
    );

  returnDecision(
    "return-close",
    "Give up a payable or failed bank return: a suspense line is unmatched again, a policy return's money the merchant's",
  )
    .requiredOption("--reason <text>", "why")
    .action(async (options: { return: string; operator: string; reason: string }) => {
      const { closeBankReturn, bankReturnJson } = await transfersModule();
      const closed = await withDatabase((db) =>
        closeBankReturn(db, { returnId: options.return, operator: options.operator, reason: options.reason }),
      );
      printJson(bankReturnJson(closed));
    });

  bank
    .command("payouts")
    .description("Finance: payouts to US bank accounts (BANKING_PROVIDER=statement)")
    .command("export")
    .description(
      "Write every payout not yet exported as one ISO 20022 pain.001.001.03 file for the bank (each payout once); --batch writes an earlier batch again",
    )
    .option("--out <file>", "write the XML to this file (default: stdout, or nothing with --json)")
    .option("--batch <id>", "an earlier batch's id: the same file again")
    .option("--json", "print the batch (id, message id, payouts, control sum) as JSON")
    .addOption(operatorOption())
    .action(async (options: { out?: string; batch?: string; json?: boolean; operator: string }) => {
      const [{ exportStatementPayouts }, { loadEncryptionKeyring }] = await Promise.all([
        import("@mp/transfers"),
        import("@mp/encryption"),
      ]);
      const exported = await withDatabase((db, config, logger) => {
        const bank = config.statementBank;
        if (!bank) throw new ConfigError("BANKING_PROVIDER", "payouts are exported with BANKING_PROVIDER=statement");
        if (!bank.payoutAccount && !options.batch) {
          throw new ConfigError("BANK_PAYOUT_ACCOUNT", "required to export payouts: the account they are paid from");
        }
        return exportStatementPayouts(db, loadEncryptionKeyring(config, { logger }), {
          debtor: {
            name: bank.accountName,
            accountNumber: bank.payoutAccount ?? "",
            routingNumber: bank.routingNumber,
            bic: bank.bic,
          },
          operator: options.operator,
          batchId: options.batch,
        });
      });
      if (exported && options.out) writeFileSync(options.out, exported.document);
      else if (exported && !options.json) process.stdout.write(exported.document);
      if (options.json) {
        printJson(
          exported
            ? {
                batch_id: exported.batchId,
                message_id: exported.messageId,
                payouts: exported.payouts,
                control_sum: exported.controlSum,
                reexport: exported.reexport,
                file: options.out ?? null,
              }
            : { batch_id: null, payouts: 0 },
        );
      } else if (!exported) process.stderr.write("no payouts to export\n");
    });
}
