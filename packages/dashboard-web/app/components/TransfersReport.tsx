import { useState } from "preact/hooks";
import { operatorApi, type TransfersReport as Report } from "../operator-api.ts";
import { DayField, TableHead } from "./Fields.tsx";
import { thisMonthSoFar } from "./format.ts";
import { Empty } from "./Loading.tsx";
import { Notice } from "./Notice.tsx";
import { useAction } from "./useAction.ts";

const COLUMNS = ["State", "Currencies", "Transfers", "Paid by payers (fee included)", "Fee", "To payees"];

/** One row per state and currency pair; a state without transfers keeps its row, with a zero. */
function ReportTable(props: { report: Report }) {
  return (
    <table class="table">
      <caption class="visually-hidden">Transfers by state, with their totals per currency</caption>
      <TableHead columns={COLUMNS} />
      <tbody>
        {props.report.states.flatMap((state) =>
          state.totals.length === 0
            ? [
                <tr key={state.status}>
                  <th scope="row">{state.status}</th>
                  <td class="muted">—</td>
                  <td>0</td>
                  <td />
                  <td />
                  <td />
                </tr>,
              ]
            : state.totals.map((t) => (
                <tr key={`${state.status}:${t.source_currency}:${t.destination_currency}`}>
                  <th scope="row">{state.status}</th>
                  <td>
                    {t.source_currency} → {t.destination_currency}
                  </td>
                  <td>{t.count}</td>
                  <td>
                    {t.source_amount} {t.source_currency}
                  </td>
                  <td>
                    {t.fee_amount} {t.source_currency}
                  </td>
                  <td>
                    {t.destination_amount} {t.destination_currency}
                  </td>
                </tr>
              )),
        )}
      </tbody>
    </table>
  );
}

/**
 * Finance's transfers report (`payments transfers report [--merchant]`): transfers created from the
 * start day (included) to the end day (excluded), UTC, by state with totals per currency, the amounts
 * the decimal strings the server gives. Either day may be cleared to leave that end open.
 */
export function TransfersReport(props: { merchantId?: string }) {
  const [from, setFrom] = useState(() => thisMonthSoFar().from);
  const [to, setTo] = useState(() => thisMonthSoFar().to);
  const [report, setReport] = useState<Report | undefined>();
  const { busy, error, run: act } = useAction();
  const [invalid, setInvalid] = useState<string | undefined>();
  const show = async (event: Event) => {
    event.preventDefault();
    if (from && to && from > to) return setInvalid("The start day must not be after the end day.");
    setInvalid(undefined);
    setReport(await act(() => operatorApi.transfersReport({ from, to }, props.merchantId)));
  };
  return (
    <form class="card form-card" onSubmit={show} aria-labelledby="transfers-report-title" aria-live="polite">
      <h2 id="transfers-report-title">Transfers report</h2>
      <p class="muted">
        {props.merchantId ? "This merchant's transfers" : "Every merchant's transfers"} created from the start day
        (included) to the end day (excluded), UTC, by state: how many, and per currency what the payers paid, the fee
        and what the payees were to receive (
        <code>payments transfers report{props.merchantId ? " --merchant ID" : ""}</code>
        ).
      </p>
      {(invalid ?? error) && <Notice kind="error">{invalid ?? error}</Notice>}
      <div class="form-row">
        <DayField id="transfers-from" label="Start (UTC day, included)" value={from} onInput={setFrom} />
        <DayField id="transfers-to" label="End (UTC day, excluded)" value={to} onInput={setTo} />
        <button type="submit" class="button primary" disabled={busy}>
          {busy ? "Loading…" : "Show report"}
        </button>
      </div>
      {report && report.count === 0 && (
        <Empty title="No transfers in this range.">Transfers appear here from the moment they are created.</Empty>
      )}
      {report && report.count > 0 && (
        <>
          <p>
            <strong>{report.count}</strong> transfers
          </p>
          <ReportTable report={report} />
        </>
      )}
    </form>
  );
}
