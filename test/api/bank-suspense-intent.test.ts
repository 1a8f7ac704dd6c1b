import { assignStatementLine, importBankStatement, listUnmatchedStatementLines } from "@mp/api";
import { checkLedger } from "@mp/ledger";
import { describe, expect, it } from "vitest";
import { useTransfersApi } from "./transfers-support.ts";

const CSV_HEADER = "booking_date,account_number,direction,amount,currency,bank_reference,reference,counterparty";

/**
 * Issue 29 item 3's leftover: a statement line that matched nothing (in bank_suspense) assigned to a
 * transfer's BANK_TRANSFER funding intent leaves suspense and funds the transfer, as a credit quoting
 * the intent's reference would; the ledger stays balanced and the assignment is audited.
 */
describe("bank suspense: a line assigned to a transfer's funding intent", () => {
  const { t, a, customer } = useTransfersApi();

  it("moves the line out of bank_suspense and funds the transfer once", async () => {
    const quote = await t.quote(a, customer.customerId, { source_amount: "100.00" });
    const created = await t.transfer(a, quote.id);
    expect(created.status, created.text).toBe(201);
    const transferId = created.body.data.id as string;
    const funding = await t.call(a, `/v1/transfers/${transferId}/funding`);
    const intentId = funding.body.data.intent.id as string;
    expect(funding.body.data.intent.required_amount.value).toBe("100.00");

    // The payer forgot the reference and the bank booked it on an account of nobody's: suspense.
    const csv = `${CSV_HEADER}\n2026-11-28,999999999999,CREDIT,100.00,USD,BNK-INTENT-1,,Payer\n`;
    const imported = await importBankStatement(t.api.db, { fileName: "s.csv", content: csv, operator: "finance" });
    expect(imported).toMatchObject({ credited: 0, unmatched: 1 });
    const line = (await listUnmatchedStatementLines(t.api.db)).find((l) => l.bankReference === "BNK-INTENT-1");
    if (!line) throw new Error("the unmatched line");
    expect((await checkLedger(t.api.db)).suspense).toMatchObject({ lines: 1, amountUsdMicros: 100_000_000n });

    // Not a bank-funded intent, or no such intent: refused, the line stays in suspense.
    await expect(
      assignStatementLine(t.api.db, {
        lineId: line.id,
        intentId: "00000000-0000-4000-8000-000000000000",
        operator: "fin",
      }),
    ).rejects.toMatchObject({ code: "not_found" });

    const assigned = await assignStatementLine(t.api.db, { lineId: line.id, intentId, operator: "fin" });
    expect(assigned).toMatchObject({ status: "ASSIGNED", virtualAccountId: customer.virtualAccountId });
    const transfer = await t.call(a, `/v1/transfers/${transferId}`);
    expect(transfer.body.data.status).not.toBe("AWAITING_MERCHANT_FUNDING");
    const after = await t.call(a, `/v1/transfers/${transferId}/funding`);
    expect(after.body.data.intent.status).not.toBe("PENDING");
    expect(after.body.data.intent.flag).toBeNull();
    // Once: the line is resolved, a second assignment is a conflict.
    await expect(assignStatementLine(t.api.db, { lineId: line.id, intentId, operator: "fin" })).rejects.toMatchObject({
      code: "conflict",
    });
    const check = await checkLedger(t.api.db);
    expect(check.problems).toEqual([]);
    expect(check.suspense).toMatchObject({ lines: 0, amountUsdMicros: 0n });
    const audit = await t.api.db.query("SELECT actor, action, details FROM operator_audit_log WHERE object_id = $1", [
      line.id,
    ]);
    expect(audit.rows).toEqual([
      {
        actor: "fin",
        action: "bank.assign",
        details: { virtual_account_id: customer.virtualAccountId, intent_id: intentId },
      },
    ]);
  });
});
