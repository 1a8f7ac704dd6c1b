import { randomBytes } from "node:crypto";
import { createEncryptionKeyring } from "@mp/encryption";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PAYEE, startTransfersApi, type TransfersApi } from "../api/transfers-support.ts";
import { useTempDir } from "../support/test-database.ts";
import { runCliOk } from "./run-cli.ts";

/** Two `payments` processes, each starting on a loaded 2-core machine. */
const CLI_TEST_TIMEOUT_MS = 300_000;

/**
 * Issue 29 item 5: `payments transfers beneficiary` opens a transfer's travel rule data for an
 * operator with the deployment's ENCRYPTION_KEY and records the reading in the audit log.
 */
describe.skipIf(!process.env.DATABASE_URL)("payments transfers beneficiary", () => {
  const dataDir = useTempDir("mpbeneficiary-");
  const key = randomBytes(32);
  let t: TransfersApi;
  beforeAll(async () => {
    t = await startTransfersApi();
    // The API seals with the key the command is given.
    t.api.deps.encryption = createEncryptionKeyring({ current: key });
  });
  afterAll(() => t?.stop());

  it(
    "prints the beneficiary of a transfer above the threshold, audited under --operator; none below it",
    async () => {
      const a = await t.api.merchant();
      const customer = await t.bankCustomer(a);
      const transferTo = async (amount: string, beneficiary?: unknown) => {
        const quote = await t.quote(a, customer.customerId, {
          destination: { type: "CRYPTO_ADDRESS", asset: "USDC", network: "BASE", address: PAYEE, beneficiary },
          source_amount: undefined,
          destination_amount: amount,
        });
        const created = await t.transfer(a, quote.id);
        expect(created.status, created.text).toBe(201);
        return created.body.data.id as string;
      };
      const large = await transferTo("3000", { type: "INDIVIDUAL", name: "Ada Lovelace" });
      const small = await transferTo("20");
      const env = {
        DATA_DIR: dataDir,
        DATABASE_URL: t.api.testDb.connectionString,
        ENCRYPTION_KEY: key.toString("base64"),
      };

      const shown = await runCliOk(["transfers", "beneficiary", large, "--operator", "ops-ada", "--json"], env);
      expect(JSON.parse(shown)).toEqual({
        transfer_id: large,
        merchant_id: a.merchantId,
        destination_usd: "3000.00",
        beneficiary: { type: "INDIVIDUAL", name: "Ada Lovelace" },
      });
      const audit = await t.api.db.query("SELECT actor, action FROM operator_audit_log WHERE object_id = $1", [large]);
      expect(audit.rows).toEqual([{ actor: "ops-ada", action: "transfer.beneficiary_viewed" }]);

      const none = await runCliOk(["transfers", "beneficiary", small], env);
      expect(none).toBe(
        `transfer ${small} merchant ${a.merchantId} payout 20.00 USD: no beneficiary on file (below the travel rule threshold)\n`,
      );
    },
    CLI_TEST_TIMEOUT_MS,
  );
});
