import { useState } from "preact/hooks";
import { CursorPager } from "../../components/CursorPager.tsx";
import { DayRangeFields, TextField } from "../../components/Fields.tsx";
import { FilterForm } from "../../components/FilterForm.tsx";
import { dayRange, formatDateTime } from "../../components/format.ts";
import { Loading, RefreshableHead } from "../../components/Loading.tsx";
import { type Column, Table } from "../../components/Table.tsx";
import { useLoad } from "../../components/useLoad.ts";
import "../../components/webhook-tools.css";
import { type AuditQuery, type AuditRow, recordsApi } from "../../records-api.ts";

const columns: ReadonlyArray<Column<AuditRow>> = [
  { header: "When", cell: (row) => formatDateTime(row.created_at) },
  { header: "Actor", cell: (row) => <span class="break">{row.actor}</span> },
  { header: "Action", cell: (row) => <code>{row.action}</code> },
  {
    header: "Object",
    cell: (row) => (
      <span class="mono break">
        {row.object_type} {row.object_id}
      </span>
    ),
  },
  {
    header: "Details",
    cell: (row) =>
      Object.keys(row.details).length === 0 ? (
        <span class="muted">—</span>
      ) : (
        <details>
          <summary>
            Details<span class="visually-hidden"> of {row.action}</span>
          </summary>
          <pre class="payload">{JSON.stringify(row.details, null, 2)}</pre>
        </details>
      ),
  },
];

/** A filter's text input: typed values are exact matches (the route compares them as such). */
const FIELDS: ReadonlyArray<[keyof AuditQuery, string]> = [
  ["actor", "Actor"],
  ["action", "Action"],
  ["object_type", "Object type"],
  ["object_id", "Object id"],
  ["merchant_id", "Merchant id"],
];

/**
 * The operator's audit log (`operator_audit_log`: sign-ins, invites, keys, merchants, KYC decisions,
 * ledger exports, ...), newest first, 50 rows a page, filtered by exact actor, action, object and
 * merchant and by created days; "Older" walks back by the last row's id (keyset, no counting).
 */
export function AuditLog() {
  const [filters, setFilters] = useState<Record<string, string>>({});
  const [from, setFrom] = useState("");
  const [to, setTo] = useState("");
  // The cursors of the pages walked so far: the last is the page shown (undefined: the newest).
  const [cursors, setCursors] = useState<Array<string | undefined>>([undefined]);
  const before = cursors.at(-1);
  const trimmed = Object.fromEntries(Object.entries(filters).map(([k, v]) => [k, v.trim()]));
  const query: AuditQuery = { ...trimmed, ...dayRange(from, to), ...(before ? { before } : {}) };
  const [rows, reload] = useLoad(() => recordsApi.auditLog(query), JSON.stringify(query));
  const set = (change: () => void) => {
    change();
    setCursors([undefined]);
  };
  return (
    <section aria-labelledby="audit-title">
      <RefreshableHead id="audit-title" title="Audit log" refresh={reload} />
      <FilterForm label="Filter the audit log">
        {FIELDS.map(([key, label]) => (
          <TextField
            optional
            key={key}
            id={`audit-${key}`}
            label={label}
            value={filters[key] ?? ""}
            onInput={(value) => set(() => setFilters({ ...filters, [key]: value }))}
          />
        ))}
        <DayRangeFields
          id="audit"
          from={from}
          to={to}
          onFrom={(v) => set(() => setFrom(v))}
          onTo={(v) => set(() => setTo(v))}
        />
      </FilterForm>
      <Loading loaded={rows} what="the audit log" retry={reload}>
        {(page) => (
          <>
            <Table
              caption="Audit log, newest first"
              columns={columns}
              rows={page.items}
              idAttribute="data-audit"
              empty={{ title: "No audit records match these filters." }}
            />
            <CursorPager
              label="Audit log"
              atNewest={cursors.length === 1}
              next={page.next}
              onNewer={() => setCursors(cursors.slice(0, -1))}
              onOlder={(next) => setCursors([...cursors, next])}
            />
          </>
        )}
      </Loading>
    </section>
  );
}
