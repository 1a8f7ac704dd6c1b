import { useState } from "preact/hooks";
import { formatDateTime } from "../../components/format.ts";
import { JournalExport } from "../../components/JournalExport.tsx";
import { Notice } from "../../components/Notice.tsx";
import { TransfersReport } from "../../components/TransfersReport.tsx";
import { useAction } from "../../components/useAction.ts";
import { type LedgerCheck, operatorApi } from "../../operator-api.ts";

/** Finance: run `ledger check` and see its result; export the journal and see the transfers report by date range. */
export function Ledger() {
  const [result, setResult] = useState<LedgerCheck | undefined>();
  const { busy, error, run: act } = useAction();
  const run = async () => setResult(await act(() => operatorApi.ledgerCheck()));
  return (
    <section aria-labelledby="ledger-title">
      <h1 id="ledger-title">Ledger</h1>
      <div class="card form-card" aria-live="polite">
        <h2>Ledger check</h2>
        <p class="muted">
          Proves every journal entry balances and each merchant's balance equals its credited deposits net of fees and
          reversals (<code>payments ledger check</code>).
        </p>
        <button type="button" class="button primary" onClick={run} disabled={busy}>
          {busy ? "Checking…" : "Run ledger check"}
        </button>
        {error && <Notice kind="error">{error}</Notice>}
        {result && (
          <div class="check-result">
            <Notice kind={result.ok ? "success" : "error"}>
              {result.ok ? "OK" : "FAILED"}: {result.entries} entries, {result.merchants} merchants,{" "}
              {result.problems.length} problems
            </Notice>
            <p class="suspense">
              Bank suspense: {result.suspense.lines} unmatched statement lines, {result.suspense.amount_usd} USD
              {result.suspense.oldest_since ? `, the oldest since ${formatDateTime(result.suspense.oldest_since)}` : ""}{" "}
              (<code>payments bank unmatched</code>: assign or return them).
            </p>
            {result.problems.length > 0 && (
              <ul class="problems">
                {result.problems.map((problem) => (
                  <li key={problem}>{problem}</li>
                ))}
              </ul>
            )}
          </div>
        )}
      </div>
      <JournalExport />
      <TransfersReport />
    </section>
  );
}
