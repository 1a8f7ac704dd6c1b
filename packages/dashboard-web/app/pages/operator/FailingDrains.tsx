import { Amount } from "../../components/Amount.tsx";
import { formatDateTime } from "../../components/format.ts";
import { RefreshablePage } from "../../components/RefreshablePage.tsx";
import { StateBadge } from "../../components/StateBadge.tsx";
import { drainReasonText, drainState } from "../../components/states.ts";
import { Table, type TableSpec } from "../../components/Table.tsx";
import { type FailingDrain, operatorApi } from "../../operator-api.ts";

const FAILING_DRAINS: TableSpec<FailingDrain> = {
  caption: "Failed liquidation drains and drains retrying, newest change first",
  idAttribute: "data-drain",
  empty: { title: "No drain is failing." },
  columns: [
    {
      header: "Drain",
      rowHeader: true,
      cell: (d) => (
        <>
          <code>{d.id}</code>
          <div class="hint mono">merchant {d.merchant_id}</div>
        </>
      ),
    },
    { header: "Deposit", cell: (d) => <Amount value={d.deposit.amount} asset={d.deposit.asset} />, class: "mono" },
    { header: "Network", cell: (d) => d.deposit.network },
    { header: "State", cell: (d) => <StateBadge state={drainState(d.state)} code={d.state} /> },
    { header: "Why", cell: (d) => drainReasonText(d) },
    { header: "Tries", cell: (d) => String(d.attempts), class: "mono" },
    { header: "Last error", cell: (d) => d.last_error ?? "—" },
    { header: "Next try", cell: (d) => (d.next_attempt_at ? formatDateTime(d.next_attempt_at) : "—") },
  ],
};

/**
 * Liquidation drains that need a look, of every merchant: failed (the money stays on the merchant's
 * balance or goes to the return address), or awaiting funds after a failed try (retried; its next try).
 */
export function FailingDrains() {
  return (
    <RefreshablePage title="Failing drains" what="failing drains" load={operatorApi.failingDrains}>
      {({ items }) => <Table {...FAILING_DRAINS} rows={items} />}
    </RefreshablePage>
  );
}
