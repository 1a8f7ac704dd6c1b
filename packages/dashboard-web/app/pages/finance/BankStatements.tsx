import { useState } from "preact/hooks";
import { Notice } from "../../components/Notice.tsx";
import { UnmatchedLines } from "../../components/UnmatchedLines.tsx";
import { useAction } from "../../components/useAction.ts";
import { type ImportedStatement, operatorApi } from "../../operator-api.ts";

/** Finance: import a bank statement (CSV or camt.053 XML) and see the lines left unmatched. */
export function BankStatements() {
  const [file, setFile] = useState<File | undefined>();
  const [result, setResult] = useState<ImportedStatement | undefined>();
  const { busy, error, run } = useAction();
  const submit = async (event: Event) => {
    event.preventDefault();
    if (!file) return;
    setResult(undefined);
    setResult(await run(async () => operatorApi.importStatement(file.name, await file.text())));
  };
  return (
    <section aria-labelledby="bank-statements-title">
      <h1 id="bank-statements-title">Bank statements</h1>
      <form class="card form-card" onSubmit={submit}>
        <p class="muted">
          Lines paid to a virtual account's number are credited once (a statement imported twice credits nothing more);
          the others wait below for finance (<code>payments bank assign|return</code>).
        </p>
        <div class="form-row">
          <div class="field">
            <label for="statement-file">Statement file (CSV or camt.053 XML)</label>
            <input
              id="statement-file"
              type="file"
              required
              accept=".csv,.xml,text/csv,application/xml,text/xml"
              onChange={(e) => setFile((e.target as HTMLInputElement).files?.[0])}
            />
          </div>
          <button type="submit" class="button primary" disabled={busy || !file}>
            {busy ? "Importing…" : "Import statement"}
          </button>
        </div>
      </form>
      <div aria-live="polite">
        {error && <Notice kind="error">{error}</Notice>}
        {result && (
          <>
            <Notice kind={result.unmatched > 0 ? "info" : "success"}>
              Imported {result.lines} lines ({result.format}): {result.credited} credited, {result.unmatched} unmatched,{" "}
              {result.already_imported} already imported.
            </Notice>
            <h2>Unmatched lines</h2>
            <UnmatchedLines lines={result.unmatched_lines} />
          </>
        )}
      </div>
    </section>
  );
}
