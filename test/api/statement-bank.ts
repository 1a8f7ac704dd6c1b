import type { StatementBankSettings } from "@mp/providers";

/** The header of the statement CSV files the tests import. */
export const STATEMENT_CSV_HEADER =
  "booking_date,account_number,direction,amount,currency,bank_reference,reference,counterparty";

/** The statement bank of the tests, its virtual account numbers drawn from `accountRange`. */
export function statementBank(accountRange: StatementBankSettings["accountRange"]): StatementBankSettings {
  return {
    bankName: "First Statement Bank",
    bankAddress: "1 Main Street, Springfield, IL 62701, United States",
    routingNumber: "071000013",
    accountName: "Acme Payments LLC",
    accountRange,
  };
}
