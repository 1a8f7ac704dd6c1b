import type { Deposit } from "../api.ts";
import { href, linkHandler } from "../router.ts";
import { Amount } from "./Amount.tsx";
import { formatDateTime } from "./format.ts";
import { StateBadge } from "./StateBadge.tsx";
import { depositState } from "./states.ts";
import { type Column, Table } from "./Table.tsx";

/** Confirmations out of those required, as a bar a screen reader reads as "2 of 3". */
export function ConfirmationProgress(props: { deposit: Deposit }) {
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

/** The deposit's page: /merchants/{merchant}/deposits/{id}. */
export function depositPath(deposit: Pick<Deposit, "merchant_id" | "id">): string {
  return `/merchants/${deposit.merchant_id}/deposits/${deposit.id}`;
}

const COLUMNS: ReadonlyArray<Column<Deposit>> = [
  {
    header: "Amount",
    cell: (deposit) => (
      <>
        <a class="row-link" href={href(depositPath(deposit))} onClick={linkHandler(depositPath(deposit))}>
          <Amount value={deposit.amount} asset={deposit.asset} />
        </a>
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
    cell: (deposit) => <StateBadge state={depositState(deposit)} code={deposit.status} />,
  },
  { header: "Confirmations", cell: (deposit) => <ConfirmationProgress deposit={deposit} /> },
  { header: "Received", cell: (deposit) => formatDateTime(deposit.created_at) },
];

/** Deposits as the overview and the deposits page list them, each amount a link to the deposit's page. */
export function DepositTable(props: { deposits: Deposit[]; caption: string }) {
  return <Table caption={props.caption} columns={COLUMNS} rows={props.deposits} idAttribute="data-deposit" />;
}
