import type { Deposit } from "../api.ts";
import { Amount } from "./Amount.tsx";
import { formatDateTime } from "./format.ts";
import { type Column, Table } from "./Table.tsx";

/** Confirmations out of those required, as a bar a screen reader reads as "2 of 3". */
function ConfirmationProgress(props: { deposit: Deposit }) {
  const required = props.deposit.required_confirmations;
  const done = Math.min(props.deposit.confirmations, required);
  return (
    <span class="progress-cell">
      <progress max={required} value={done} aria-label={`${done} of ${required} confirmations`} />
      <span>
        {done} / {required}
      </span>
    </span>
  );
}

const COLUMNS: ReadonlyArray<Column<Deposit>> = [
  {
    header: "Amount",
    cell: (deposit) => (
      <>
        <Amount value={deposit.amount} asset={deposit.asset} />
        {deposit.amount_usd !== null && (
          <span class="muted">
            {" "}
            (<Amount value={deposit.amount_usd} asset="USD" />)
          </span>
        )}
      </>
    ),
  },
  { header: "Chain", cell: (deposit) => deposit.chain },
  {
    header: "Status",
    cell: (deposit) => <span class={`status ${deposit.status.toLowerCase()}`}>{deposit.status}</span>,
  },
  { header: "Confirmations", cell: (deposit) => <ConfirmationProgress deposit={deposit} /> },
  { header: "Received", cell: (deposit) => formatDateTime(deposit.created_at) },
];

/** Deposits as the overview and the deposits page list them. */
export function DepositTable(props: { deposits: Deposit[]; caption: string }) {
  return (
    <Table
      caption={props.caption}
      columns={COLUMNS}
      rows={props.deposits}
      rowKey={(deposit) => deposit.id}
      rowAttributes={(deposit) => ({ "data-deposit": deposit.id })}
    />
  );
}
