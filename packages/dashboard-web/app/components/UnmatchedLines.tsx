import type { StatementLine } from "../operator-api.ts";
import { Empty } from "./Loading.tsx";

/** Bank statement lines waiting for finance (assign or return, `payments bank assign|return`). */
export function UnmatchedLines(props: { lines: StatementLine[] }) {
  if (props.lines.length === 0) return <Empty title="No unmatched lines: every statement line is accounted for." />;
  return (
    <table class="table">
      <caption class="visually-hidden">Statement lines waiting for finance</caption>
      <thead>
        <tr>
          <th scope="col">Booked</th>
          <th scope="col">Amount</th>
          <th scope="col">Account</th>
          <th scope="col">Reference</th>
          <th scope="col">Why it is unmatched</th>
        </tr>
      </thead>
      <tbody>
        {props.lines.map((line) => (
          <tr key={line.id}>
            <td data-label="Booked">{line.bookingDate}</td>
            <td data-label="Amount">
              <span class="mono">
                {line.direction === "DEBIT" ? "-" : ""}
                {line.amount}
              </span>{" "}
              {line.currency}
            </td>
            <td data-label="Account">
              <code>{line.account}</code>
            </td>
            <td data-label="Reference">
              {line.reference ?? "—"}
              {line.counterparty && <div class="hint">{line.counterparty}</div>}
            </td>
            <td data-label="Why it is unmatched">{line.reason ?? "—"}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
