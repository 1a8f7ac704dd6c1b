import { dateFormat } from "../components/DepositTable.tsx";
import { TableHead } from "../components/Fields.tsx";
import { LoadFailed } from "../components/LoadFailed.tsx";
import { Pager } from "../components/Pager.tsx";
import { QrCode } from "../components/QrCode.tsx";
import { useLoad } from "../components/useLoad.ts";
import { usePagedList } from "../components/usePagedList.ts";
import { merchantApi } from "../merchant-api.ts";
import { href, linkHandler } from "../router.ts";

/** The merchant's wallets, newest first. */
export function Wallets(props: { merchantId: string }) {
  const { list: wallets, reload, page, setPage } = usePagedList(merchantApi.wallets, props.merchantId);
  if (wallets.state === "loading") return <p class="muted">Loading wallets…</p>;
  if (wallets.state === "error") return <LoadFailed error={wallets.error} retry={reload} />;
  const { items, total, total_pages: totalPages } = wallets.value;
  return (
    <section aria-labelledby="wallets-title">
      <h1 id="wallets-title">Wallets</h1>
      {items.length === 0 ? (
        <div class="empty">
          <p>No wallets yet.</p>
          <p class="muted">
            Create one for a customer with <code>POST /v1/wallets</code>: it gets an address on each of ten chains.
          </p>
        </div>
      ) : (
        <table class="table">
          <caption class="visually-hidden">{total} wallets, newest first</caption>
          <TableHead columns={["Label", "Status", "Addresses", "Created"]} />
          <tbody>
            {items.map((wallet) => {
              const to = `/merchants/${props.merchantId}/wallets/${wallet.id}`;
              return (
                <tr key={wallet.id}>
                  <td data-label="Label">
                    <a href={href(to)} onClick={linkHandler(to)}>
                      {wallet.label}
                    </a>
                  </td>
                  <td data-label="Status">
                    <span class={`status ${wallet.status.toLowerCase()}`}>{wallet.status}</span>
                  </td>
                  <td data-label="Addresses">{wallet.destinations.length}</td>
                  <td data-label="Created">{dateFormat.format(new Date(wallet.created_at))}</td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
      <Pager page={page} totalPages={totalPages} onPage={setPage} label="Wallet" />
    </section>
  );
}

/** One wallet: its ten receive addresses, each with a QR code to scan from a phone's wallet app. */
export function WalletDetail(props: { merchantId: string; walletId: string }) {
  const [wallet, reload] = useLoad(
    () => merchantApi.wallet(props.merchantId, props.walletId),
    `${props.merchantId}:${props.walletId}`,
  );
  const back = `/merchants/${props.merchantId}/wallets`;
  if (wallet.state === "loading") return <p class="muted">Loading the wallet…</p>;
  if (wallet.state === "error") {
    if (wallet.error.status === 404 && wallet.error.message.includes("Wallet")) {
      return (
        <section>
          <h1>Wallet not found</h1>
          <p class="muted">There is no wallet here that you can see.</p>
        </section>
      );
    }
    return <LoadFailed error={wallet.error} retry={reload} />;
  }
  const { label, destinations, id } = wallet.value;
  return (
    <section aria-labelledby="wallet-title">
      <a href={href(back)} onClick={linkHandler(back)}>
        ← Wallets
      </a>
      <h1 id="wallet-title">Wallet {label}</h1>
      <p class="muted mono">{id}</p>
      <ul class="addresses">
        {destinations.map((destination) => (
          <li key={destination.id} class="card address">
            <QrCode value={destination.address} label={`QR code of the ${destination.chain} address`} />
            <div>
              <h2>{destination.chain}</h2>
              <p class="mono break">{destination.address}</p>
              <span class={`status ${destination.status.toLowerCase()}`}>{destination.status}</span>
            </div>
          </li>
        ))}
      </ul>
    </section>
  );
}
