import { randomBytes } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { importBankStatement, listUnmatchedStatementLines } from "@mp/api";
import { createEncryptionKeyring } from "@mp/encryption";
import { createStatementBankingProvider, payoutEndToEndId, type StatementBankSettings } from "@mp/providers";
import { executeBankReturnsOnce } from "@mp/transfers";
import { describe, expect, it } from "vitest";
import { useTempDir, useTestDatabase } from "../support/test-database.ts";
import { runCli, runCliOk } from "./run-cli.ts";

/**
 * Five `payments` processes in a row: generous under the full suite's load (see operator-commands).
 * What is not the operator's part (the bank's statement confirming the payout) runs in process.
 */
const CLI_TEST_TIMEOUT_MS = 480_000;

const HEADER =
  "booking_date,account_number,direction,amount,currency,bank_reference,reference,counterparty,counterparty_account,counterparty_routing_number";
const SETTINGS: StatementBankSettings = {
  bankName: "First Statement Bank",
  bankAddress: "1 Main Street, Springfield, IL 62701, United States",
  routingNumber: "071000013",
  accountName: "Acme Payments LLC",
  accountRange: { first: "800000000000", last: "800000999999" },
};
const PAYOUT_ACCOUNT = "7000000001";

/**
 * A statement line that matched nothing, returned through the CLI (BANKING_PROVIDER=statement):
 * the worker's bank-return pass (run here in process on the same database, as the worker role runs
 * it) queues its payout at the statement bank, keyed by the return's id; finance exports it in a
 * pain.001 file to the payer's account the line named; the next statement's debit confirms it; the
 * line leaves suspense once, and `ledger check` is OK. A lost answer (a crash after the bank was
 * asked) and replays queue nothing twice.
 */
describe("payments bank return: a suspense line paid back to its payer by bank", () => {
  const database = useTestDatabase();
  const dataDir = useTempDir("mpbankret-");
  const key = randomBytes(32);
  const env = () => ({
    DATA_DIR: dataDir,
    DATABASE_URL: database.connectionString,
    ENCRYPTION_KEY: key.toString("base64"),
    BANKING_PROVIDER: "statement",
    BANK_NAME: SETTINGS.bankName,
    BANK_ADDRESS: SETTINGS.bankAddress,
    BANK_ROUTING_NUMBER: SETTINGS.routingNumber,
    BANK_ACCOUNT_NAME: SETTINGS.accountName,
    BANK_ACCOUNT_RANGE: "800000000000-800000999999",
    BANK_PAYOUT_ACCOUNT: PAYOUT_ACCOUNT,
  });
  /** The worker role's pass over bank returns, with the statement bank and the CLI's key. */
  const workerPass = () =>
    executeBankReturnsOnce(
      database.db,
      {
        banking: createStatementBankingProvider({ db: database.db, settings: SETTINGS }),
        keyring: createEncryptionKeyring({ current: key }),
      },
      50,
    );
  const cli = (args: string[]) => runCliOk(args, env());
  const queuedPayouts = async () =>
    (await database.db.query("SELECT payout_id FROM statement_bank_payouts")).rows.map((r) => r.payout_id as string);

  it(
    "pays the payer once, out of suspense, and the ledger check is OK",
    async () => {
      const file = join(dataDir, "statement.csv");
      writeFileSync(
        file,
        `${HEADER}\n2026-11-24,800000000099,CREDIT,75.00,USD,BNK-R1,INV-9,Pat Payer,555566667777,021000021\n`,
      );
      expect(JSON.parse(await cli(["bank", "import", file]))).toMatchObject({ unmatched: 1 });
      const [line] = await listUnmatchedStatementLines(database.db);
      if (!line) throw new Error("the line is unmatched");
      // Sealed at rest: the payer's account is not in the clear on the line.
      const sealed = await database.db.query<{ payer_ciphertext: Buffer }>(
        "SELECT payer_ciphertext FROM bank_statement_lines WHERE id = $1",
        [line.id],
      );
      expect(sealed.rows[0]?.payer_ciphertext.toString("latin1")).not.toContain("555566667777");

      const returned = JSON.parse(await cli(["bank", "return", "--line", line.id, "--reason", "unknown payer"]));
      expect(returned).toMatchObject({ status: "RETURNED", bank_return: { state: "sending", amount: "75.00" } });
      const returnId: string = returned.bank_return.id;

      await workerPass();
      expect(await queuedPayouts()).toEqual([returnId]);
      // The worker crashed before recording the bank's answer: the next pass asks again, by the same key.
      await database.db.query("UPDATE bank_returns SET provider_payout_id = NULL WHERE id = $1", [returnId]);
      await workerPass();
      await workerPass();
      expect(await queuedPayouts()).toEqual([returnId]);

      const pain = join(dataDir, "returns.xml");
      expect(JSON.parse(await cli(["bank", "payouts", "export", "--out", pain, "--json"]))).toMatchObject({
        payouts: 1,
        control_sum: "75.00",
      });
      const document = readFileSync(pain, "utf8");
      expect(document).toContain("<Id>555566667777</Id>");
      expect(document).toContain("<MmbId>021000021</MmbId>");
      expect(document).toContain(`<EndToEndId>${payoutEndToEndId(returnId)}</EndToEndId>`);

      // The bank's next statement: the debit quoting the payout's end-to-end id confirms it.
      const confirming = `${HEADER}\n2026-11-25,${PAYOUT_ACCOUNT},DEBIT,75.00,USD,BNK-R1-OUT,${payoutEndToEndId(returnId)},Pat Payer,,\n`;
      expect(
        await importBankStatement(database.db, { fileName: "day2.csv", content: confirming, operator: "finance" }),
      ).toMatchObject({ payoutsCompleted: 1 });
      expect(await workerPass()).toBe(1);
      for (let i = 0; i < 2; i++) expect(await workerPass()).toBe(0);

      const [listed, ...others] = (await cli(["bank", "returns", "--json"]))
        .trim()
        .split("\n")
        .map((text) => JSON.parse(text));
      expect(others).toEqual([]);
      expect(listed).toMatchObject({ id: returnId, origin: "suspense", state: "returned", amount: "75.00" });
      const entries = await database.db.query<{ kind: string }>(
        "SELECT kind FROM journal_entries WHERE reference = $1 ORDER BY seq",
        [line.id],
      );
      expect(entries.rows.map((r) => r.kind)).toEqual(["bank_suspense_in", "bank_suspense_out"]);
      const check = await cli(["ledger", "check"]);
      expect(check).toMatch(/^OK: /m);
      expect(check).toMatch(/^suspense: 0 unmatched bank lines, 0\.000000 USD$/m);
    },
    CLI_TEST_TIMEOUT_MS,
  );

  it(
    "a payable return is given an account (sealed) by return-send; return-close refuses one being sent",
    async () => {
      const file = join(dataDir, "no-payer.csv");
      writeFileSync(file, `${HEADER}\n2026-11-26,800000000098,CREDIT,20.00,USD,BNK-R2,INV-10,,,\n`);
      await cli(["bank", "import", file]);
      const line = (await listUnmatchedStatementLines(database.db)).find((l) => l.bankReference === "BNK-R2");
      if (!line) throw new Error("the line is unmatched");
      const opened = JSON.parse(await cli(["bank", "return", "--line", line.id, "--reason", "no such customer"]));
      expect(opened.bank_return).toMatchObject({ state: "payable", reason: expect.stringMatching(/no payer account/) });
      const id: string = opened.bank_return.id;

      const sent = JSON.parse(
        await cli([
          "bank",
          "return-send",
          "--return",
          id,
          "--account",
          "123456789",
          "--routing",
          "021000021",
          "--name",
          "Pat Payer",
          "--operator",
          "ops",
        ]),
      );
      expect(sent).toMatchObject({ id, state: "sending", reason: null });
      const refused = await runCli(["bank", "return-close", "--return", id, "--reason", "too late"], env());
      expect(refused.code).not.toBe(0);
      expect(refused.stderr).toMatch(/is sending: only a payable or failed one can be closed/);

      await workerPass();
      const payouts = await database.db.query<{ payout_id: string; amount: string }>(
        "SELECT payout_id, amount::text AS amount FROM statement_bank_payouts WHERE payout_id = $1",
        [id],
      );
      expect(payouts.rows).toEqual([{ payout_id: id, amount: "20.00" }]);
      const audit = await database.db.query<{ action: string; actor: string }>(
        "SELECT action, actor FROM operator_audit_log WHERE object_type = 'bank_return' AND object_id = $1",
        [id],
      );
      expect(audit.rows).toEqual([{ action: "bank.return_sent", actor: "ops" }]);
    },
    CLI_TEST_TIMEOUT_MS,
  );
});
