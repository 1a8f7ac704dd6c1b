import { formatDateTime, formatDuration } from "../../components/format.ts";
import { Empty, Loading, RefreshableHead } from "../../components/Loading.tsx";
import { useLoad } from "../../components/useLoad.ts";
import { operatorApi } from "../../operator-api.ts";

const STATES = ["created", "retry", "active", "completed", "failed", "cancelled"] as const;

/** The operator's job queues: counts by state, the oldest waiting job, and the failed jobs. */
export function JobQueues() {
  const [jobs, reload] = useLoad(() => operatorApi.jobs(), "operator-jobs");
  return (
    <section aria-labelledby="jobs-title">
      <RefreshableHead id="jobs-title" title="Job queues" refresh={reload} />
      <Loading loaded={jobs} what="job queues" retry={reload}>
        {({ queues, failed }) => (
          <>
            {queues.length === 0 ? (
              <Empty title="No jobs yet.">Queues appear once a process with workers has started.</Empty>
            ) : (
              <table class="table">
                <caption class="visually-hidden">Jobs of each queue by state</caption>
                <thead>
                  <tr>
                    <th scope="col">Queue</th>
                    {STATES.map((s) => (
                      <th scope="col" key={s}>
                        {s}
                      </th>
                    ))}
                    <th scope="col">Oldest waiting</th>
                  </tr>
                </thead>
                <tbody>
                  {queues.map((q) => (
                    <tr key={q.queue}>
                      <th scope="row" data-label="Queue">
                        <code>{q.queue}</code>
                      </th>
                      {STATES.map((s) => (
                        <td key={s} data-label={s} class={s === "failed" && q.counts[s] ? "mono danger-text" : "mono"}>
                          {q.counts[s] ?? 0}
                        </td>
                      ))}
                      <td data-label="Oldest waiting">
                        {q.oldest_waiting_seconds === null ? "—" : formatDuration(q.oldest_waiting_seconds)}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )}
            <h2>Failed jobs</h2>
            {failed.length === 0 ? (
              <Empty title="No failed jobs." />
            ) : (
              <table class="table">
                <caption class="visually-hidden">The newest failed jobs</caption>
                <thead>
                  <tr>
                    <th scope="col">Queue</th>
                    <th scope="col">Failed</th>
                    <th scope="col">Retries</th>
                    <th scope="col">Error</th>
                  </tr>
                </thead>
                <tbody>
                  {failed.map((f) => (
                    <tr key={f.id}>
                      <td data-label="Queue">
                        <code>{f.queue}</code>
                        <div class="hint mono">{f.id}</div>
                      </td>
                      <td data-label="Failed">{formatDateTime(f.failed_at)}</td>
                      <td data-label="Retries" class="mono">
                        {f.retry_count}
                      </td>
                      <td data-label="Error">{f.error ?? "—"}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )}
          </>
        )}
      </Loading>
    </section>
  );
}
