import { CopyableValue } from "../components/CopyableValue.tsx";
import { CopyButton } from "../components/CopyButton.tsx";
import { createdColumn, statusColumn } from "../components/columns.tsx";
import { DetailStates } from "../components/DetailStates.tsx";
import { InAppLink } from "../components/InAppLink.tsx";
import { PagedListPage } from "../components/PagedListPage.tsx";
import { QrCode } from "../components/QrCode.tsx";
import { StatusText } from "../components/StatusText.tsx";
import type { Column } from "../components/Table.tsx";
import { useLoad } from "../components/useLoad.ts";
import { merchantApi, type Wallet } from "../merchant-api.ts";

/** A wallet's row, in the wallets list and on its customer's page: its label opens it. */
export const walletColumns = (merchantId: string): ReadonlyArray<Column<Wallet>> => [
  {
    header: "Wallet",
    rowHeader: true,
    cell: (wallet) => <InAppLink to={`/merchants/${merchantId}/wallets/${wallet.id}`}>{wallet.label}</InAppLink>,
  },
  statusColumn(),
  { header: "Addresses", cell: (wallet) => wallet.destinations.length },
  createdColumn(),
];

/** The merchant's wallets, newest first. */
export function Wallets(props: { merchantId: string }) {
  return (
    <PagedListPage
      merchantId={props.merchantId}
      title="Wallets"
      load={merchantApi.wallets}
      columns={walletColumns(props.merchantId)}
      empty={{
        title: "No wallets yet.",
        children: (
          <>
            Create one for a customer with <code>POST /v1/wallets</code>: it gets an address on each of ten chains.
          </>
        ),
      }}
    />
  );
}

/** One wallet: its ten receive addresses, each with a QR code to scan from a phone's wallet app and a copy button. */
export function WalletDetail(props: { merchantId: string; walletId: string }) {
  const [wallet, reload] = useLoad(
    () => merchantApi.wallet(props.merchantId, props.walletId),
    `${props.merchantId}:${props.walletId}`,
  );
  const back = `/merchants/${props.merchantId}/wallets`;
  const backLink = <InAppLink to={back}>← Wallets</InAppLink>;
  return (
    <DetailStates what="Wallet" backLink={backLink} loaded={wallet} retry={reload}>
      {({ label, destinations, id }) => (
        <section aria-labelledby="wallet-title">
          {backLink}
          <h1 id="wallet-title">Wallet {label}</h1>
          <p class="muted">
            <CopyableValue value={id} what="wallet id" />
          </p>
          <ul class="addresses">
            {destinations.map((destination) => (
              <li key={destination.id} class="card address">
                <QrCode value={destination.address} label={`QR code of the ${destination.chain} address`} />
                <div>
                  <h2>{destination.chain}</h2>
                  <p class="mono break">{destination.address}</p>
                  <div class="address-actions">
                    <StatusText status={destination.status} />
                    <CopyButton value={destination.address} what={`${destination.chain} address`} />
                  </div>
                </div>
              </li>
            ))}
          </ul>
        </section>
      )}
    </DetailStates>
  );
}
