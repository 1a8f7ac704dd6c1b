import { formatDateTime, formatDuration } from "../../components/format.ts";
import { RefreshablePage } from "../../components/RefreshablePage.tsx";
import { type Column, Table, type TableSpec } from "../../components/Table.tsx";
import { type FailedJob, operatorApi, type QueueRow } from "../../operator-api.ts";

const STATES = ["created", "retry", "active", "completed", "failed", "cancelled"] as const;

const QUEUES: TableSpec<QueueRow> = {
  caption: "Jobs of each queue by state",
  rowKey: (q) => q.queue,
  empty: { title: "No jobs yet.", children: "Queues appear once a process with workers has started." },
  columns: [
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
  ],
};

const FAILED_JOBS: TableSpec<FailedJob> = {
  caption: "The newest failed jobs",
  empty: { title: "No failed jobs." },
  columns: [
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
  ],
};

/** The operator's job queues: counts by state, the oldest waiting job, and the failed jobs. */
export function JobQueues() {
  return (
    <RefreshablePage title="Job queues" what="job queues" load={operatorApi.jobs}>
      {({ queues, failed }) => (
        <>
          <Table {...QUEUES} rows={queues} />
          <h2>Failed jobs</h2>
          <Table {...FAILED_JOBS} rows={failed} />
        </>
      )}
    </RefreshablePage>
  );
}
