import type { Command } from "commander";
import { parseDate, printJson, withDatabase } from "./cli-support.ts";

// Each action imports what it runs: `payments --help` and every other command never load them.
const custodyModule = () => import("@mp/custody");
const ledgerModule = () => import("@mp/ledger");
// Core's index too: its configuration schemas (zod) are no part of `payments --help`.
const coreModule = () => import("@mp/core");

/** custody verify, wallets export, ledger check, ledger export, deposits held|release|return, keys rotate-encryption. */
export function addOperatorCommands(program: Command, keys: Command): void {
  const custody = program.command("custody").description("Check the deployment's custody");
  custody
    .command("verify")
    .description("Re-derive every stored address from the configured mnemonic; exits 1 on any mismatch")
    .option("--merchant <id>", "only this merchant's wallets")
    .action(async (options: { merchant?: string }) => {
      const [{ verifyCustody }, { openCustody }] = await Promise.all([custodyModule(), import("../open-custody.ts")]);
      const result = await withDatabase(async (db, config, logger) => {
        const deriver = await openCustody(db, config, logger);
        return verifyCustody(db, deriver, options.merchant ? { merchantId: options.merchant } : {});
      });
      for (const m of result.mismatches) {
        process.stdout.write(
          `MISMATCH ${m.problem} destination=${m.destinationId} wallet=${m.walletId} chain=${m.chain} path=${m.stored.path} stored=${m.stored.address} derived=${m.derived?.address ?? "-"}\n`,
        );
      }
      process.stdout.write(`checked ${result.checked} addresses, ${result.mismatches.length} mismatches\n`);
      if (result.mismatches.length > 0) process.exitCode = 1;
    });

  program
    .command("wallets")
    .description("Wallet operations")
    .command("export")
    .description("Write a merchant's wallets as CSV (wallet id, chain, address, derivation path) on stdout")
    .requiredOption("--merchant <id>", "merchant id")
    .action(async (options: { merchant: string }) => {
      // The CSV's module only: custody's index brings the key derivation, which an export never does.
      const { exportWalletsCsv } = await import("@mp/custody/wallets-csv");
      await withDatabase((db) => exportWalletsCsv(db, options.merchant, (line) => process.stdout.write(`${line}\n`)));
    });

  const ledger = program.command("ledger").description("Finance: check and export the ledger");
  ledger
    .command("check")
    .description(
      "Prove every journal entry balances and each merchant's balance equals its credited deposits net of fees and reversals; exits 1 on any difference",
    )
    .action(async () => {
      const [{ checkLedger, registeredLedgerChecks }, { registerLedgerChecks }, { formatUsd }] = await Promise.all([
        ledgerModule(),
        import("../ledger-checks.ts"),
        coreModule(),
      ]);
      registerLedgerChecks();
      const result = await withDatabase((db) => checkLedger(db));
      for (const problem of result.problems) process.stdout.write(`PROBLEM ${problem}\n`);
      process.stdout.write(
        `${result.ok ? "OK" : "FAILED"}: ${result.entries} entries, ${result.merchants} merchants, ${result.problems.length} problems\n`,
      );
      process.stdout.write(`also checked: ${registeredLedgerChecks().join(", ")}\n`);
      // What sits in bank suspense (unmatched statement credits) and since when: finance's to-do.
      const { suspense } = result;
      process.stdout.write(
        `suspense: ${suspense.lines} unmatched bank lines, ${formatUsd(suspense.amountUsdMicros)} USD${suspense.oldestSince ? `, oldest since ${suspense.oldestSince.toISOString()}` : ""}\n`,
      );
      if (!result.ok) process.exitCode = 1;
    });
  ledger
    .command("export")
    .description("Write the journal lines posted in [from, to) as CSV on stdout")
    .requiredOption("--from <date>", "ISO date or timestamp (inclusive)")
    .requiredOption("--to <date>", "ISO date or timestamp (exclusive)")
    .option("--merchant <id>", "only the lines on this merchant's accounts (as its dashboard finance page exports)")
    .action(async (options: { from: string; to: string; merchant?: string }) => {
      const range = {
        from: parseDate("--from", options.from),
        to: parseDate("--to", options.to),
        merchantId: options.merchant,
      };
      const { exportJournalCsv } = await ledgerModule();
      await withDatabase((db) => exportJournalCsv(db, range, (line) => process.stdout.write(`${line}\n`)));
    });

  const deposits = program.command("deposits").description("Operators: deposits held out of available");
  deposits
    .command("held")
    .description("List confirmed deposits still held (a rejected customer's), oldest first")
    .option("--merchant <id>", "only this merchant's deposits")
    .option("--json", "one JSON array on stdout")
    .action(async (options: { merchant?: string; json?: boolean }) => {
      const [{ listHeldDeposits }, { formatUsd, unitsToDecimal }] = await Promise.all([ledgerModule(), coreModule()]);
      const held = await withDatabase((db) =>
        listHeldDeposits(db, options.merchant ? { merchantId: options.merchant } : {}),
      );
      const rows = held.map((d) => ({
        deposit_id: d.depositId,
        merchant_id: d.merchantId,
        customer_id: d.customerId,
        chain: d.chain,
        asset: d.asset,
        amount: unitsToDecimal(BigInt(d.amountRaw), d.decimals),
        from_address: d.fromAddress,
        tx_hash: d.txHash,
        held_reason: d.heldReason,
        amount_usd: formatUsd(d.amountUsdMicros),
        net_amount_usd: formatUsd(d.netAmountUsdMicros),
        confirmed_at: d.confirmedAt.toISOString(),
      }));
      if (options.json) {
        printJson(rows);
        return;
      }
      for (const r of rows) {
        process.stdout.write(
          `${r.deposit_id} merchant=${r.merchant_id} ${r.chain} ${r.amount} ${r.asset} (${r.net_amount_usd} USD net) from=${r.from_address ?? "-"} tx=${r.tx_hash} reason=${r.held_reason}\n`,
        );
      }
      process.stdout.write(`${rows.length} held deposits\n`);
    });
  deposits
    .command("release")
    .description("Release a held deposit to its merchant's available balance")
    .requiredOption("--deposit <id>", "deposit id")
    .action(async (options: { deposit: string }) => {
      const { releaseHeldDeposit } = await ledgerModule();
      const { entryId } = await withDatabase((db) =>
        db.tx((c) => releaseHeldDeposit(c, { depositId: options.deposit })),
      );
      process.stdout.write(`released deposit ${options.deposit} (journal entry ${entryId})\n`);
    });
  deposits
    .command("return")
    .description(
      "Refuse a held deposit and send it back to its payer through the treasury (less the network fee); again: retry a payable one",
    )
    .requiredOption("--deposit <id>", "deposit id")
    .option("--reason <text>", "why it is returned (recorded on the deposit; required while it is held)")
    .option("--to <address>", "Bitcoin only: the payer's refund address")
    .option("--json", "answer as JSON")
    .action(async (options: { deposit: string; reason?: string; to?: string; json?: boolean }) => {
      const { returnDeposit } = await import("./deposit-return-action.ts");
      await returnDeposit(options);
    });

  keys
    .command("rotate-encryption")
    .description(
      "Re-encrypt every KYC payload and account number under ENCRYPTION_KEY; old keys come from ENCRYPTION_KEYS_OLD",
    )
    .action(async () => {
      const [{ loadEncryptionKeyring }, { rotateEncryption }] = await Promise.all([
        import("@mp/encryption"),
        import("./rotate-encryption.ts"),
      ]);
      const { reencrypted } = await withDatabase((db, config, logger) =>
        rotateEncryption(db, loadEncryptionKeyring(config, { logger }), logger),
      );
      process.stdout.write(`re-encrypted ${reencrypted} values\n`);
    });
}
