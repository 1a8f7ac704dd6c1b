import { useState } from "preact/hooks";
import { journalCsvPath } from "../operator-api.ts";
import { DayField } from "./Fields.tsx";
import { thisMonthSoFar } from "./format.ts";
import { Notice } from "./Notice.tsx";

/**
 * The journal export by date range: a plain GET form, so the browser streams the CSV straight to a
 * download (the session cookie rides along; a read needs no CSRF token). Days are UTC, `to` excluded,
 * as `payments ledger export --from --to` takes them.
 */
export function JournalExport(props: { merchantId?: string }) {
  const [from, setFrom] = useState(() => thisMonthSoFar().from);
  const [to, setTo] = useState(() => thisMonthSoFar().to);
  const [error, setError] = useState<string | undefined>();
  return (
    <form
      class="card form-card"
      method="get"
      action={journalCsvPath(props.merchantId)}
      aria-labelledby="journal-export-title"
      onSubmit={(event) => {
        if (from > to) {
          event.preventDefault();
          setError("The start day must not be after the end day.");
        } else setError(undefined);
      }}
    >
      <h2 id="journal-export-title">Journal export (CSV)</h2>
      <p class="muted">
        {props.merchantId ? "The journal lines on this merchant's accounts" : "Every journal line of the platform"}{" "}
        posted from the start day (included) to the end day (excluded), UTC: the same file as{" "}
        <code>payments ledger export{props.merchantId ? " --merchant ID" : ""}</code>.
      </p>
      {error && <Notice kind="error">{error}</Notice>}
      <div class="form-row">
        <DayField
          id="journal-from"
          name="from"
          label="From (UTC day, included)"
          value={from}
          onInput={setFrom}
          required
        />
        <DayField id="journal-to" name="to" label="To (UTC day, excluded)" value={to} onInput={setTo} required />
        <button type="submit" class="button primary">
          Download CSV
        </button>
      </div>
    </form>
  );
}
