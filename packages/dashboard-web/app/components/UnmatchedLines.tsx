import type { StatementLine } from "../operator-api.ts";
import { Amount } from "./Amount.tsx";
import { BankLineActions } from "./BankLineActions.tsx";
import { type Column, Table } from "./Table.tsx";

const COLUMNS: ReadonlyArray<Column<StatementLine>> = [
  { header: "Booked", cell: (line) => line.bookingDate },
  {
    header: "Amount",
    cell: (line) => <Amount value={`${line.direction === "DEBIT" ? "-" : ""}${line.amount}`} asset={line.currency} />,
  },
  { header: "Account", cell: (line) => <code>{line.account}</code> },
  {
    header: "Reference",
    cell: (line) => (
      <>
        {line.reference ?? "—"}
        {line.counterparty && <div class="hint">{line.counterparty}</div>}
      </>
    ),
  },
  { header: "Why it is unmatched", cell: (line) => line.reason ?? "—" },
];

/**
 * Bank statement lines waiting for finance, each with why it did not match; with `onChanged`, each
 * row also assigns or returns its line (as `payments bank assign|return`).
 */
export function UnmatchedLines(props: { lines: StatementLine[]; onChanged?: () => void }) {
  const { onChanged } = props;
  return (
    <Table
      caption="Statement lines waiting for finance"
      columns={COLUMNS}
      rows={props.lines}
      empty={{ title: "No unmatched lines: every statement line is accounted for." }}
      {...(onChanged
        ? { actions: (line: StatementLine) => <BankLineActions line={line} onChanged={onChanged} /> }
        : {})}
    />
  );
}
