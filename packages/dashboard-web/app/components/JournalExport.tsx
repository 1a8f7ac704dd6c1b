import { useState } from "preact/hooks";
import { downloadJournal } from "../operator-api.ts";
import { DayField } from "./Fields.tsx";
import { thisMonthSoFar } from "./format.ts";
import { Notice } from "./Notice.tsx";
import { useAction } from "./useAction.ts";

/**
 * The journal export by date range, downloaded by the page (fetch, then the file to the browser's
 * downloads), so a refusal shows here instead of a raw JSON page. Days are UTC, `to` excluded, as
 * `payments ledger export --from --to` takes them.
 */
export function JournalExport(props: { merchantId?: string }) {
  const [from, setFrom] = useState(() => thisMonthSoFar().from);
  const [to, setTo] = useState(() => thisMonthSoFar().to);
  const [invalid, setInvalid] = useState<string | undefined>();
  const { busy, error, run } = useAction();
  const submit = async (event: Event) => {
    event.preventDefault();
    if (from > to) return setInvalid("The start day must not be after the end day.");
    setInvalid(undefined);
    await run(() => downloadJournal({ from, to }, props.merchantId));
  };
  return (
    <form class="card form-card" onSubmit={submit} aria-labelledby="journal-export-title" aria-busy={busy}>
      <h2 id="journal-export-title">Journal export (CSV)</h2>
      <p class="muted">
        {props.merchantId ? "The journal lines on this merchant's accounts" : "Every journal line of the platform"}{" "}
        posted from the start day (included) to the end day (excluded), UTC: the same file as{" "}
        <code>payments ledger export{props.merchantId ? " --merchant ID" : ""}</code>.
      </p>
      {(invalid ?? error) && <Notice kind="error">{invalid ?? error}</Notice>}
      <div class="form-row">
        <DayField id="journal-from" label="From (UTC day, included)" value={from} onInput={setFrom} required />
        <DayField id="journal-to" label="To (UTC day, excluded)" value={to} onInput={setTo} required />
        <button type="submit" class="button primary" disabled={busy}>
          Download CSV
        </button>
      </div>
    </form>
  );
}
