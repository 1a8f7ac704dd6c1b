import { useState } from "preact/hooks";
import { Amount } from "../../components/Amount.tsx";
import { formatDateTime } from "../../components/format.ts";
import { Loading } from "../../components/Loading.tsx";
import { Notice } from "../../components/Notice.tsx";
import { type Column, Table } from "../../components/Table.tsx";
import { UnmatchedLines } from "../../components/UnmatchedLines.tsx";
import { useAction } from "../../components/useAction.ts";
import { useLoad } from "../../components/useLoad.ts";
import { operatorApi, type ReconcileLine, type StatementImport } from "../../operator-api.ts";

const LINE_STATUS: Record<ReconcileLine["status"], string> = {
  agrees: "Agrees",
  unexplained: "Unexplained difference",
  unreadable: "Cannot read the chain",
};

/** A figure of a line: rounded to the asset's precision, every digit in smallest units on demand. */
function LineAmount(props: { raw: string | null; line: ReconcileLine }) {
  if (props.raw === null) return <>—</>;
  return (
    <>
      <Amount raw={props.raw} decimals={props.line.decimals} asset={props.line.asset} />
      <details class="exact">
        <summary>Exact</summary>
        <div class="mono">{props.raw} (smallest units)</div>
      </details>
    </>
  );
}

const LINE_COLUMNS: ReadonlyArray<Column<ReconcileLine>> = [
  { header: "Chain · asset", cell: (line) => `${line.chain} · ${line.asset}`, rowHeader: true },
  {
    header: "Status",
    cell: (line) => (
      <>
        <span class={`status reconcile-${line.status}`}>{LINE_STATUS[line.status]}</span>
        <div class="hint">{line.explanation}</div>
      </>
    ),
  },
  { header: "On chain", cell: (line) => <LineAmount raw={line.chain_holdings} line={line} /> },
  { header: "Expected", cell: (line) => <LineAmount raw={line.expected} line={line} /> },
  { header: "Difference", cell: (line) => <LineAmount raw={line.difference} line={line} /> },
];

const IMPORT_COLUMNS: ReadonlyArray<Column<StatementImport>> = [
  {
    header: "File",
    cell: (i) => (
      <>
        {i.file_name} <span class="hint">({i.format})</span>
      </>
    ),
  },
  { header: "Lines", cell: (i) => i.lines, class: "mono" },
  { header: "Credited", cell: (i) => i.credited, class: "mono" },
  { header: "Unmatched", cell: (i) => i.unmatched, class: "mono" },
  { header: "Already imported", cell: (i) => i.already_imported, class: "mono" },
  {
    header: "Imported",
    cell: (i) => (
      <>
        {formatDateTime(i.imported_at)}
        <div class="hint">{i.imported_by}</div>
      </>
    ),
  },
];

/** `payments reconcile chains`, run on demand: it asks each configured chain's node. */
function ChainReconciliation() {
  type Report = Awaited<ReturnType<typeof operatorApi.reconcileChains>>;
  const [report, setReport] = useState<Report | undefined>();
  const { busy, error, run: act } = useAction();
  // No chains configured is a 503 whose message says so.
  const run = async () => setReport(await act(() => operatorApi.reconcileChains()));
  return (
    <section aria-labelledby="chain-reconciliation-title" aria-live="polite" aria-busy={busy}>
      <div class="page-head">
        <h2 id="chain-reconciliation-title">Chains</h2>
        <button type="button" class="button primary" onClick={run} disabled={busy}>
          {busy ? "Reading the chains…" : "Run chain reconciliation"}
        </button>
      </div>
      <p class="muted">
        What each chain says the platform holds against what the records say it should (deposits, float, sends, fees).
        It reads every configured node, so it can take a while.
      </p>
      {error && <Notice kind="error">{error}</Notice>}
      {report && report.unreadable.length > 0 && (
        <Notice kind="error">
          Cannot read {report.unreadable.join(", ")}: the node did not answer. Those lines have no chain figure; the
          others are still compared.
        </Notice>
      )}
      {report && report.exit_code === 0 && <Notice kind="success">Every chain and asset agrees.</Notice>}
      {report && report.exit_code === 1 && (
        <Notice kind="error">A difference nothing in the records explains: see the lines below.</Notice>
      )}
      {report && report.lines.length > 0 && (
        <Table
          caption="Chain reconciliation by chain and asset"
          columns={LINE_COLUMNS}
          rows={report.lines}
          rowKey={(line) => `${line.chain}:${line.asset}`}
        />
      )}
    </section>
  );
}

function BankReconciliation() {
  const [bank, reload] = useLoad(() => operatorApi.reconcileBank(), "reconcile-bank");
  return (
    <section aria-labelledby="bank-reconciliation-title">
      <h2 id="bank-reconciliation-title">Bank</h2>
      <Loading loaded={bank} what="the bank reconciliation" retry={reload}>
        {({ imports, unmatched }) => (
          <>
            <Table
              caption="Latest statement imports"
              showCaption
              columns={IMPORT_COLUMNS}
              rows={imports}
              empty={{ title: "No bank statement imported yet.", children: "Import one on the Bank statements page." }}
            />
            <h3>Differences: unmatched lines</h3>
            <UnmatchedLines lines={unmatched} onChanged={reload} />
          </>
        )}
      </Loading>
    </section>
  );
}

/** Finance: the chain and bank reconciliations with their differences. */
export function Reconciliation() {
  return (
    <section aria-labelledby="reconciliation-title">
      <h1 id="reconciliation-title">Reconciliation</h1>
      <ChainReconciliation />
      <BankReconciliation />
    </section>
  );
}
