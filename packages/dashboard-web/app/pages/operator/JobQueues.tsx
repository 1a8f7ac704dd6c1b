import { formatDateTime, formatDuration } from "../../components/format.ts";
import { RefreshablePage } from "../../components/RefreshablePage.tsx";
import { type Column, Table } from "../../components/Table.tsx";
import { type FailedJob, operatorApi, type QueueRow } from "../../operator-api.ts";

const STATES = ["created", "retry", "active", "completed", "failed", "cancelled"] as const;

const QUEUE_COLUMNS: ReadonlyArray<Column<QueueRow>> = [
  { header: "Queue", cell: (q) => <code>{q.queue}</code>, rowHeader: true },
  ...STATES.map(
    (s): Column<QueueRow> => ({
      header: s,
      cell: (q) => q.counts[s] ?? 0,
      class: (q) => (s === "failed" && q.counts[s] ? "mono danger-text" : "mono"),
    }),
  ),
  {
    header: "Oldest waiting",
    cell: (q) => (q.oldest_waiting_seconds === null ? "—" : formatDuration(q.oldest_waiting_seconds)),
  },
];

const FAILED_COLUMNS: ReadonlyArray<Column<FailedJob>> = [
  {
    header: "Queue",
    cell: (f) => (
      <>
        <code>{f.queue}</code>
        <div class="hint mono">{f.id}</div>
      </>
    ),
  },
  { header: "Failed", cell: (f) => formatDateTime(f.failed_at) },
  { header: "Retries", cell: (f) => f.retry_count, class: "mono" },
  { header: "Error", cell: (f) => f.error ?? "—" },
];

/** The operator's job queues: counts by state, the oldest waiting job, and the failed jobs. */
export function JobQueues() {
  return (
    <RefreshablePage title="Job queues" what="job queues" load={operatorApi.jobs}>
      {({ queues, failed }) => (
        <>
          <Table
            caption="Jobs of each queue by state"
            columns={QUEUE_COLUMNS}
            rows={queues}
            rowKey={(q) => q.queue}
            empty={{ title: "No jobs yet.", children: "Queues appear once a process with workers has started." }}
          />
          <h2>Failed jobs</h2>
          <Table
            caption="The newest failed jobs"
            columns={FAILED_COLUMNS}
            rows={failed}
            empty={{ title: "No failed jobs." }}
          />
        </>
      )}
    </RefreshablePage>
  );
}
