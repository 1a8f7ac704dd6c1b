import { useState } from "preact/hooks";
import { operatorApi, type TransfersReport as Report } from "../operator-api.ts";
import { Amount } from "./Amount.tsx";
import { DayField } from "./Fields.tsx";
import { thisMonthSoFar } from "./format.ts";
import { Empty } from "./Loading.tsx";
import { Notice } from "./Notice.tsx";
import { type Column, Table } from "./Table.tsx";
import { useAction } from "./useAction.ts";

type Totals = Report["states"][number]["totals"][number];
/** One row of the report: a state with one currency pair's totals, or a state without transfers. */
type Row = { status: string; totals: Totals | undefined };

const COLUMNS: ReadonlyArray<Column<Row>> = [
  { header: "State", cell: (row) => row.status, rowHeader: true },
  {
    header: "Currencies",
    cell: (row) => (row.totals ? `${row.totals.source_currency} → ${row.totals.destination_currency}` : "—"),
  },
  { header: "Transfers", cell: (row) => row.totals?.count ?? 0 },
  {
    header: "Paid by payers (fee included)",
    cell: (row) => row.totals && <Amount value={row.totals.source_amount} asset={row.totals.source_currency} />,
  },
  {
    header: "Fee",
    cell: (row) => row.totals && <Amount value={row.totals.fee_amount} asset={row.totals.source_currency} />,
  },
  {
    header: "To payees",
    cell: (row) =>
      row.totals && <Amount value={row.totals.destination_amount} asset={row.totals.destination_currency} />,
  },
];

/** One row per state and currency pair; a state without transfers keeps its row, with a zero. */
function ReportTable(props: { report: Report }) {
  const rows = props.report.states.flatMap((state): Row[] =>
    state.totals.length === 0
      ? [{ status: state.status, totals: undefined }]
      : state.totals.map((totals) => ({ status: state.status, totals })),
  );
  return (
    <Table
      caption="Transfers by state, with their totals per currency"
      columns={COLUMNS}
      rows={rows}
      rowKey={(row) => `${row.status}:${row.totals?.source_currency}:${row.totals?.destination_currency}`}
    />
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
    <form
      class="card form-card"
      onSubmit={show}
      aria-labelledby="transfers-report-title"
      aria-live="polite"
      aria-busy={busy}
    >
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
          Show report
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
