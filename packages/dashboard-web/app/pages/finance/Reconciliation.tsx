import { useState } from "preact/hooks";
import { formatDateTime } from "../../components/format.ts";
import { Empty, Loading } from "../../components/Loading.tsx";
import { Notice } from "../../components/Notice.tsx";
import { UnmatchedLines } from "../../components/UnmatchedLines.tsx";
import { useAction } from "../../components/useAction.ts";
import { useLoad } from "../../components/useLoad.ts";
import { operatorApi, type ReconcileLine } from "../../operator-api.ts";

const LINE_STATUS: Record<ReconcileLine["status"], string> = {
  agrees: "Agrees",
  unexplained: "Unexplained difference",
  unreadable: "Cannot read the chain",
};

/** `payments reconcile chains`, run on demand: it asks each configured chain's node. */
function ChainReconciliation() {
  type Report = Awaited<ReturnType<typeof operatorApi.reconcileChains>>;
  const [report, setReport] = useState<Report | undefined>();
  const { busy, error, run: act } = useAction();
  // No chains configured is a 503 whose message says so.
  const run = async () => setReport(await act(() => operatorApi.reconcileChains()));
  return (
    <section aria-labelledby="chain-reconciliation-title" aria-live="polite">
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
        <table class="table">
          <caption class="visually-hidden">Chain reconciliation by chain and asset, in smallest units</caption>
          <thead>
            <tr>
              <th scope="col">Chain · asset</th>
              <th scope="col">Status</th>
              <th scope="col">On chain</th>
              <th scope="col">Expected</th>
              <th scope="col">Difference</th>
            </tr>
          </thead>
          <tbody>
            {report.lines.map((line) => (
              <tr key={`${line.chain}:${line.asset}`}>
                <th scope="row" data-label="Chain · asset">
                  {line.chain} · {line.asset}
                </th>
                <td data-label="Status">
                  <span class={`status reconcile-${line.status}`}>{LINE_STATUS[line.status]}</span>
                  <div class="hint">{line.explanation}</div>
                </td>
                <td data-label="On chain" class="mono">
                  {line.chain_holdings ?? "—"}
                </td>
                <td data-label="Expected" class="mono">
                  {line.expected}
                </td>
                <td data-label="Difference" class="mono">
                  {line.difference ?? "—"}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
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
            {imports.length === 0 ? (
              <Empty title="No bank statement imported yet.">Import one on the Bank statements page.</Empty>
            ) : (
              <table class="table">
                <caption>Latest statement imports</caption>
                <thead>
                  <tr>
                    <th scope="col">File</th>
                    <th scope="col">Lines</th>
                    <th scope="col">Credited</th>
                    <th scope="col">Unmatched</th>
                    <th scope="col">Already imported</th>
                    <th scope="col">Imported</th>
                  </tr>
                </thead>
                <tbody>
                  {imports.map((i) => (
                    <tr key={i.id}>
                      <td data-label="File">
                        {i.file_name} <span class="hint">({i.format})</span>
                      </td>
                      <td data-label="Lines" class="mono">
                        {i.lines}
                      </td>
                      <td data-label="Credited" class="mono">
                        {i.credited}
                      </td>
                      <td data-label="Unmatched" class="mono">
                        {i.unmatched}
                      </td>
                      <td data-label="Already imported" class="mono">
                        {i.already_imported}
                      </td>
                      <td data-label="Imported">
                        {formatDateTime(i.imported_at)}
                        <div class="hint">{i.imported_by}</div>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )}
            <h3>Differences: unmatched lines</h3>
            <UnmatchedLines lines={unmatched} />
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
