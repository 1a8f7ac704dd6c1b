import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { useTempDir, useTestDatabase } from "../support/test-database.ts";
import { runCli, runCliOk } from "./run-cli.ts";

/**
 * Several `payments` processes in a row: generous under the full suite's load (see operator-commands).
 * The first file to run the CLI after a source change waits for the launcher's rebuild too.
 */
const CLI_TEST_TIMEOUT_MS = 360_000;

describe("payments bank and kyc commands, as finance and operators run them", () => {
  const database = useTestDatabase({ migrate: false });
  const dataDir = useTempDir("mpbank-");
  const env = () => ({
    DATA_DIR: dataDir,
    DATABASE_URL: process.env.DATABASE_URL ? database.connectionString : undefined,
  });

  it(
    "imports a CSV statement once, lists what matched nothing, and records a return (payable: no payer account)",
    async () => {
      const file = join(dataDir, "statement.csv");
      writeFileSync(
        file,
        "booking_date,account_number,direction,amount,currency,bank_reference,reference,counterparty\n" +
          "2026-11-24,800000000099,CREDIT,75.00,USD,BNK-77,INV-9,Somebody\n",
      );
      const first = await runCliOk(["bank", "import", file, "--operator", "fin"], env());
      expect(JSON.parse(first)).toMatchObject({ format: "csv", lines: 1, credited: 0, unmatched: 1 });
      const again = await runCli(["bank", "import", file], env());
      expect(JSON.parse(again.stdout)).toMatchObject({ lines: 1, unmatched: 0, already_imported: 1 });

      const listed = await runCli(["bank", "unmatched", "--json"], env());
      const [line] = listed.stdout
        .trim()
        .split("\n")
        .map((text) => JSON.parse(text));
      expect(line).toMatchObject({ amount: "75.00", reason: "no virtual account has the number 800000000099" });
      // Matching nothing, it sits in bank suspense, and ledger check counts it.
      const inSuspense = await runCliOk(["ledger", "check"], env());
      expect(inSuspense).toMatch(/^suspense: 1 unmatched bank lines, 75\.000000 USD, oldest since \d{4}-/m);
      const returned = await runCliOk(["bank", "return", "--line", line.id, "--reason", "unknown payer"], env());
      // The line names no payer account: its bank return stays payable, saying why.
      expect(JSON.parse(returned)).toMatchObject({
        status: "RETURNED",
        bank_return: { origin: "suspense", state: "payable", amount: "75.00" },
      });
      expect((await runCli(["bank", "unmatched"], env())).stdout).toContain("0 unmatched lines");
      // Not paid: the money is still at the bank, in suspense.
      const still = await runCli(["ledger", "check"], env());
      expect(still.stdout).toMatch(/^suspense: 1 unmatched bank lines, 75\.000000 USD/m);

      writeFileSync(file, "booking_date,account_number\n2026-11-24,1\n");
      const refused = await runCli(["bank", "import", file], env());
      expect(refused.code).not.toBe(0);
      expect(refused.stderr).toContain("header has no direction column");
    },
    CLI_TEST_TIMEOUT_MS,
  );

  it(
    "lists an empty review queue and refuses a decision on an unknown attempt",
    async () => {
      const listed = await runCliOk(["kyc", "list"], env());
      expect(listed).toContain("0 reviews");
      const refused = await runCli(["kyc", "reject", "00000000-0000-4000-8000-000000000000", "--reason", "x"], env());
      expect(refused.code).not.toBe(0);
      expect(refused.stderr).toMatch(/KYC review not found/);
    },
    CLI_TEST_TIMEOUT_MS,
  );

  it(
    "reports transfers by state and exports payouts only with the statement bank",
    async () => {
      const report = await runCliOk(["transfers", "report", "--from", "2026-01-01", "--json"], env());
      const parsed = JSON.parse(report);
      expect(parsed).toMatchObject({ from: "2026-01-01T00:00:00.000Z", to: null, merchant_id: null, count: 0 });
      // Every state, each empty.
      expect(parsed.states).toHaveLength(8);
      expect(parsed.states[0]).toEqual({ status: "AWAITING_MERCHANT_FUNDING", count: 0, totals: [] });
      const refused = await runCli(["bank", "payouts", "export", "--json"], env());
      expect(refused.code).not.toBe(0);
      expect(refused.stderr).toContain("BANKING_PROVIDER");
    },
    CLI_TEST_TIMEOUT_MS,
  );
});
