import { formatDateTime } from "../../components/format.ts";
import { Empty } from "../../components/Loading.tsx";
import { RefreshablePage } from "../../components/RefreshablePage.tsx";
import { type Column, Table } from "../../components/Table.tsx";
import { type ChainRow, type ChainStateName, operatorApi } from "../../operator-api.ts";

const STATE_NAMES: Record<ChainStateName, string> = {
  indexing: "Indexing",
  lagging: "Lagging",
  waiting: "Waiting for a first block",
  no_indexer: "No indexer running",
  stopped: "Stopped",
};

/** The lag samples as a small line chart, described in words for screen readers. */
function LagChart(props: { chain: string; history: ChainRow["lag_history"] }) {
  const points = props.history.filter((s) => s.lag !== null) as Array<{ at: string; lag: number }>;
  if (points.length < 2) return <span class="muted">Not enough samples yet</span>;
  const width = 160;
  const height = 36;
  const max = Math.max(1, ...points.map((p) => p.lag));
  const step = width / (points.length - 1);
  const path = points.map((p, i) => `${(i * step).toFixed(1)},${(height - (p.lag / max) * height).toFixed(1)}`);
  const first = points[0];
  const last = points[points.length - 1];
  const label = `${props.chain} lag from ${first?.lag} to ${last?.lag} blocks over ${points.length} samples since ${formatDateTime(first?.at)}, peak ${max}`;
  return (
    <svg
      class="sparkline"
      width={width}
      height={height}
      viewBox={`0 0 ${width} ${height}`}
      role="img"
      aria-label={label}
    >
      <title>{label}</title>
      <polyline points={path.join(" ")} fill="none" stroke="currentColor" stroke-width="2" />
    </svg>
  );
}

const COLUMNS: ReadonlyArray<Column<ChainRow>> = [
  { header: "Chain", cell: (c) => c.chain, rowHeader: true },
  {
    header: "State",
    cell: (c) => (
      <>
        <span class={`status chain-${c.state}`}>{STATE_NAMES[c.state]}</span>
        {c.stopped_error && <div class="hint">{c.stopped_error}</div>}
        {c.leader && (
          <div class="hint">
            {c.leader.host} pid {c.leader.pid}
          </div>
        )}
      </>
    ),
  },
  { header: "Head", cell: (c) => c.head_height ?? "—", class: "mono" },
  { header: "Indexed", cell: (c) => c.indexed_height ?? "—", class: "mono" },
  { header: "Lag", cell: (c) => (c.lag === null ? "—" : `${c.lag} blocks`), class: "mono" },
  { header: "Lag over time", cell: (c) => <LagChart chain={c.chain} history={c.lag_history} /> },
  {
    header: "RPC errors",
    cell: (c) => (c.rpc_errors === null ? <span class="muted">Not in this process</span> : c.rpc_errors),
    class: "mono",
  },
];

/** The operator's chains: head, indexed height, lag and its recent history, RPC errors and state. */
export function Chains() {
  return (
    <RefreshablePage title="Chains" what="chains" load={operatorApi.chains}>
      {({ items, lagging_blocks: lagging }) =>
        items.length === 0 ? (
          <Empty title="No chain is indexed yet.">
            Chains appear once an indexer process (payments serve --role indexer or all) has started.
          </Empty>
        ) : (
          <>
            <p class="muted">
              Lagging: more than {lagging} blocks behind the head. Lag history is sampled each minute by this process;
              Prometheus keeps the long one (deploy/grafana).
            </p>
            <Table caption="Indexer state of each chain" columns={COLUMNS} rows={items} rowKey={(c) => c.chain} />
          </>
        )
      }
    </RefreshablePage>
  );
}
