-- Why the bank sent back the money a statement line returns (camt.053 RtrInf/Rsn, e.g. the ACH
-- return code R03, then RtrInf/AddtlInf; the CSV's return_reason column): the reason a returned
-- payout's transfer (REFUNDED) or bank return shows (docs/returns.md "A payout returned after it
-- completed"). Null on every other line, and on lines imported before this column existed.
ALTER TABLE bank_statement_lines ADD COLUMN return_reason text;
