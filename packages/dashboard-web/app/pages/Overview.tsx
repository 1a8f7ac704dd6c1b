import { useEffect } from "preact/hooks";
import { api, type Balance } from "../api.ts";
import { Amount } from "../components/Amount.tsx";
import { DepositTable } from "../components/DepositTable.tsx";
import { LoadFailed } from "../components/LoadFailed.tsx";
import { Empty, Skeleton } from "../components/Loading.tsx";
import { useLoad } from "../components/useLoad.ts";
import { usePoll } from "../components/usePoll.ts";
import { VolumeChart } from "../components/VolumeChart.tsx";
import { merchantApi } from "../merchant-api.ts";
import { POLL_MS, useArrivals } from "./Deposits.tsx";

/** The chart moves by the day: a slower refresh than the balance's. */
const VOLUME_POLL_MS = 30_000;

const BALANCE_PARTS: Array<[keyof Omit<Balance, "currency">, string, string]> = [
  ["available", "Available", "Credited deposits net of fees, minus reserved"],
  ["reserved", "Reserved", "Held for payouts in flight"],
  ["pending", "Pending", "Deposits still confirming, at current rates"],
  ["held", "Held", "Confirmed but held until an operator releases or returns them"],
];

/**
 * A merchant's balance (the server's exact decimal strings, only formatted here) and newest deposits,
 * live: refreshed every POLL_MS, a live region announcing each new deposit.
 */
export function Overview(props: { merchantId: string }) {
  const [overview, reload] = useLoad(() => api.overview(props.merchantId), props.merchantId);
  const [volume, reloadVolume] = useLoad(() => merchantApi.volume(props.merchantId), props.merchantId);
  const { arrived, see } = useArrivals(props.merchantId);
  // Live as the deposits page: the balance, the chart and the newest deposits follow the chain.
  usePoll(reload, POLL_MS);
  usePoll(reloadVolume, VOLUME_POLL_MS);
  useEffect(() => {
    if (overview.state === "ready") see(overview.value.recent_deposits);
  }, [overview]);
  if (overview.state === "error") return <LoadFailed error={overview.error} retry={reload} />;
  if (overview.state === "loading") {
    return (
      <section aria-labelledby="overview-title">
        <h1 id="overview-title">Overview</h1>
        <Skeleton what="the overview" rows={4} />
      </section>
    );
  }
  const { balance, recent_deposits: deposits, total_deposits: total } = overview.value;
  return (
    <section aria-labelledby="overview-title">
      <h1 id="overview-title">Overview</h1>
      <ul class="stats" aria-label="Balance in USD">
        {BALANCE_PARTS.map(([part, label, help]) => (
          <li key={part} class="card stat">
            <span class="stat-label">{label}</span>
            <span class="stat-value">
              <Amount value={balance[part]} asset={balance.currency} />
            </span>
            <span class="hint">{help}</span>
          </li>
        ))}
      </ul>
      {volume.state === "ready" && <VolumeChart days={volume.value.days} items={volume.value.items} />}
      {volume.state === "error" && <p class="muted">The volume chart could not be loaded: {volume.error.message}</p>}
      <p class="visually-hidden" role="status" aria-live="polite">
        {arrived}
      </p>
      <div class="page-head">
        <h2>Recent deposits</h2>
        <span class="muted live">Live: refreshed every {POLL_MS / 1000} s</span>
      </div>
      {deposits.length === 0 ? (
        <Empty title="No deposits yet.">
          Deposits to your customers' wallets appear here as soon as a chain shows them.
        </Empty>
      ) : (
        <DepositTable deposits={deposits} caption={`The ${deposits.length} newest of ${total} deposits`} />
      )}
    </section>
  );
}
