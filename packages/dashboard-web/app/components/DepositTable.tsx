import type { Deposit } from "../api.ts";
import { TableHead } from "./Fields.tsx";

export const dateFormat = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "short" });

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

/** Deposits as the overview and the deposits page list them; amounts are the server's decimal strings. */
export function DepositTable(props: { deposits: Deposit[]; caption: string }) {
  return (
    <table class="table">
      <caption class="visually-hidden">{props.caption}</caption>
      <TableHead columns={["Amount", "Chain", "Status", "Confirmations", "Received"]} />
      <tbody>
        {props.deposits.map((deposit) => (
          <tr key={deposit.id} data-deposit={deposit.id}>
            <td data-label="Amount">
              <span class="mono">{deposit.amount}</span> {deposit.asset}
              {deposit.amount_usd !== null && <span class="muted"> (${deposit.amount_usd})</span>}
            </td>
            <td data-label="Chain">{deposit.chain}</td>
            <td data-label="Status">
              <span class={`status ${deposit.status.toLowerCase()}`}>{deposit.status}</span>
            </td>
            <td data-label="Confirmations">
              <ConfirmationProgress deposit={deposit} />
            </td>
            <td data-label="Received">{dateFormat.format(new Date(deposit.created_at))}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
