import { describe, expect, it } from "vitest";
import { useTestDatabase } from "../../../test/support/test-database.ts";
import { checkLedger, getMerchantBalance, postPolicyReturn } from "../src/index.ts";
import { createMerchant, creditDeposit, reverseDeposit, systemBalance, USD } from "./ledger-fixtures.ts";

const t = useTestDatabase();

/**
 * A merchant's return policy takes back part of a deposit (an over-payment's excess: its intent kept
 * the rest): `ledger check` counts what the `policy_return` entry owes, and a reorganisation that
 * removes the deposit undoes its credit and its policy return together.
 */
describe("policy returns of part of a deposit", () => {
  it("owes the part taken back, and a reversal leaves nothing behind", async () => {
    const m = await createMerchant(t.db);
    const { depositId } = await creditDeposit(t.db, m, { gross: 60n * USD, fee: 900_000n });
    const owedBefore = await systemBalance(t.db, "returns_payable");
    const feesBefore = await systemBalance(t.db, "fee_revenue");
    // The excess: 10 USD, of which 0.175 was its fee.
    await t.db.tx((c) =>
      postPolicyReturn(c, { depositId, merchantId: m.merchantId, netUsdMicros: 9_825_000n, feeUsdMicros: 175_000n }),
    );
    expect((await getMerchantBalance(t.db, m.merchantId)).available).toBe(49_275_000n);
    expect((await systemBalance(t.db, "returns_payable")) - owedBefore).toBe(10n * USD);
    expect(await checkLedger(t.db)).toMatchObject({ ok: true, problems: [] });

    await reverseDeposit(t.db, m, depositId);
    expect((await getMerchantBalance(t.db, m.merchantId)).available).toBe(0n);
    expect(await systemBalance(t.db, "returns_payable")).toBe(owedBefore);
    expect(await systemBalance(t.db, "fee_revenue")).toBe(feesBefore - 900_000n);
    expect(await checkLedger(t.db)).toMatchObject({ ok: true, problems: [] });
  });
});
