import { formatDateTime } from "../../components/format.ts";
import { Empty, Loading, RefreshableHead } from "../../components/Loading.tsx";
import { useLoad } from "../../components/useLoad.ts";
import { operatorApi } from "../../operator-api.ts";

/** The treasury's balances (as the signer last read them) and its sends not yet confirmed or failed. */
export function Treasury() {
  const [treasury, reload] = useLoad(() => operatorApi.treasury(), "operator-treasury");
  return (
    <section aria-labelledby="treasury-title">
      <RefreshableHead id="treasury-title" title="Treasury" refresh={reload} />
      <Loading loaded={treasury} what="the treasury" retry={reload}>
        {({ balances, pending_sends: sends }) => (
          <>
            <h2>Balances</h2>
            {balances.length === 0 ? (
              <Empty title="No balances read yet.">The signer (payments serve --role signer) records them.</Empty>
            ) : (
              <table class="table">
                <caption class="visually-hidden">Treasury balances per chain and asset</caption>
                <thead>
                  <tr>
                    <th scope="col">Chain</th>
                    <th scope="col">Asset</th>
                    <th scope="col">Amount</th>
                    <th scope="col">Read</th>
                  </tr>
                </thead>
                <tbody>
                  {balances.map((b) => (
                    <tr key={`${b.chain}:${b.asset}`}>
                      <td data-label="Chain">{b.chain}</td>
                      <td data-label="Asset">{b.asset}</td>
                      <td data-label="Amount" class="mono">
                        {b.amount}
                      </td>
                      <td data-label="Read">{formatDateTime(b.observed_at)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )}
            <h2>Pending sends</h2>
            {sends.length === 0 ? (
              <Empty title="No pending sends." />
            ) : (
              <table class="table">
                <caption class="visually-hidden">Sends not yet confirmed or failed, oldest first</caption>
                <thead>
                  <tr>
                    <th scope="col">Amount</th>
                    <th scope="col">To</th>
                    <th scope="col">State</th>
                    <th scope="col">Why it waits</th>
                    <th scope="col">Requested</th>
                  </tr>
                </thead>
                <tbody>
                  {sends.map((s) => (
                    <tr key={s.id}>
                      <td data-label="Amount">
                        <span class="mono">{s.amount ?? `${s.amount_raw} (smallest units)`}</span> {s.asset} on{" "}
                        {s.chain}
                        <div class="hint">{s.purpose}</div>
                      </td>
                      <td data-label="To">
                        <code class="id">{s.to}</code>
                      </td>
                      <td data-label="State">{s.state}</td>
                      <td data-label="Why it waits">{s.reason ?? "—"}</td>
                      <td data-label="Requested">{formatDateTime(s.created_at)}</td>
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
