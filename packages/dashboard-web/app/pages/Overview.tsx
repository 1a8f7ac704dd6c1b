import { api, type Balance } from "../api.ts";
import { LoadFailed } from "../components/LoadFailed.tsx";
import { useLoad } from "../components/useLoad.ts";

const dateFormat = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "short" });

const BALANCE_PARTS: Array<[keyof Omit<Balance, "currency">, string, string]> = [
  ["available", "Available", "Credited deposits net of fees, minus reserved"],
  ["reserved", "Reserved", "Held for payouts in flight"],
  ["pending", "Pending", "Deposits still confirming, at current rates"],
  ["held", "Held", "Confirmed but held until an operator releases or returns them"],
];

/** A merchant's balance (exact decimal strings from the server, never re-computed here) and newest deposits. */
export function Overview(props: { merchantId: string }) {
  const [overview, reload] = useLoad(() => api.overview(props.merchantId), props.merchantId);
  if (overview.state === "loading") return <p class="muted">Loading the overview…</p>;
  if (overview.state === "error") return <LoadFailed error={overview.error} retry={reload} />;
  const { balance, recent_deposits: deposits, total_deposits: total } = overview.value;
  return (
    <section aria-labelledby="overview-title">
      <h1 id="overview-title">Overview</h1>
      <ul class="stats" aria-label="Balance in USD">
        {BALANCE_PARTS.map(([part, label, help]) => (
          <li key={part} class="card stat">
            <span class="stat-label">{label}</span>
            <span class="stat-value">
              <span class="currency">$</span>
              {balance[part]}
            </span>
            <span class="hint">{help}</span>
          </li>
        ))}
      </ul>
      <h2>Recent deposits</h2>
      {deposits.length === 0 ? (
        <div class="empty">
          <p>No deposits yet.</p>
          <p class="muted">Deposits to your customers' wallets appear here as soon as a chain shows them.</p>
        </div>
      ) : (
        <table class="table">
          <caption class="visually-hidden">
            The {deposits.length} newest of {total} deposits
          </caption>
          <thead>
            <tr>
              <th scope="col">Amount</th>
              <th scope="col">Chain</th>
              <th scope="col">Status</th>
              <th scope="col">Confirmations</th>
              <th scope="col">Received</th>
            </tr>
          </thead>
          <tbody>
            {deposits.map((deposit) => (
              <tr key={deposit.id}>
                <td data-label="Amount">
                  <span class="mono">{deposit.amount}</span> {deposit.asset}
                  {deposit.amount_usd !== null && <span class="muted"> (${deposit.amount_usd})</span>}
                </td>
                <td data-label="Chain">{deposit.chain}</td>
                <td data-label="Status">
                  <span class={`status ${deposit.status.toLowerCase()}`}>{deposit.status}</span>
                </td>
                <td data-label="Confirmations">
                  {Math.min(deposit.confirmations, deposit.required_confirmations)} / {deposit.required_confirmations}
                </td>
                <td data-label="Received">{dateFormat.format(new Date(deposit.created_at))}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
