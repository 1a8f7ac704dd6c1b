-- Issue 33: two indexes no query reads, each written by every ledger posting (a 2,000-deposit credit
-- batch inserts 6,000 lines and 2,000 entries). No statement of the code filters journal_lines by
-- account alone (the ledger check sums all lines per account in one scan; balances are read from
-- account_balances) nor journal_entries by merchant (entries are found by (kind, reference), by id,
-- and exported by (created_at, seq)); pg_stat_user_indexes after test/indexer counted 0 scans of
-- both. They served the foreign keys' other side only: ledger_accounts refuse deletes (0010), and
-- no merchant is ever deleted.
DROP INDEX journal_lines_account;
DROP INDEX journal_entries_merchant;
