import { Amount } from "../components/Amount.tsx";
import { CopyableValue } from "../components/CopyableValue.tsx";
import { createdColumn, statusColumn } from "../components/columns.tsx";
import { DescriptionList } from "../components/DescriptionList.tsx";
import { DetailStates } from "../components/DetailStates.tsx";
import { formatDateTime } from "../components/format.ts";
import { InAppLink } from "../components/InAppLink.tsx";
import { PagedListPage } from "../components/PagedListPage.tsx";
import { StateBadge } from "../components/StateBadge.tsx";
import { StatusText } from "../components/StatusText.tsx";
import { drainReasonText, drainState } from "../components/states.ts";
import { type Column, Table } from "../components/Table.tsx";
import { useLoad } from "../components/useLoad.ts";
import { type Drain, type LiquidationAddress, liquidationApi } from "../liquidation-api.ts";

/** Where the address pays out, masked as the API answers it. */
export function destinationText(address: LiquidationAddress): string {
  const d = address.destination;
  if (d.bank_account) return `${d.asset} to ${d.bank_account.account_holder_name} ${d.bank_account.account_number}`;
  return `${d.asset} on ${d.network} to ${d.address ?? "—"}`;
}

function MoneyCell(props: { money: Drain["fee"] }) {
  return props.money ? <Amount value={props.money.value} asset={props.money.asset} /> : <>—</>;
}

/** The merchant's liquidation addresses, newest first: each opens its drains. */
export function LiquidationAddresses(props: { merchantId: string }) {
  const base = `/merchants/${props.merchantId}`;
  const columns: ReadonlyArray<Column<LiquidationAddress>> = [
    {
      header: "Address",
      rowHeader: true,
      class: "mono",
      cell: (a) => <InAppLink to={`${base}/liquidation-addresses/${a.id}`}>{a.address}</InAppLink>,
    },
    { header: "Network", cell: (a) => a.network },
    { header: "Asset", cell: (a) => a.asset },
    { header: "Pays out", cell: (a) => destinationText(a) },
    statusColumn("State"),
    createdColumn(),
  ];
  return (
    <PagedListPage
      merchantId={props.merchantId}
      title="Liquidation addresses"
      one="Liquidation address"
      load={liquidationApi.list}
      columns={columns}
      idAttribute="data-liquidation-address"
      empty={{
        title: "No liquidation addresses yet.",
        children: (
          <>
            Create one with <code>POST /v1/liquidation-addresses</code>: every deposit to it is paid out.
          </>
        ),
      }}
    />
  );
}

const drainColumns: ReadonlyArray<Column<Drain>> = [
  {
    header: "Deposit",
    rowHeader: true,
    cell: (d) => <Amount value={d.deposit.amount} asset={d.deposit.asset} />,
    class: "mono",
  },
  {
    header: "State",
    cell: (d) => <StateBadge state={drainState(d.state)} code={d.state} />,
  },
  { header: "Value", cell: (d) => <MoneyCell money={d.source_amount} />, class: "mono" },
  { header: "Fee", cell: (d) => <MoneyCell money={d.fee} />, class: "mono" },
  { header: "Paid out", cell: (d) => <MoneyCell money={d.destination_amount} />, class: "mono" },
  {
    header: "Why",
    cell: (d) => {
      return drainReasonText(d);
    },
  },
  {
    header: "Return",
    cell: (d) =>
      d.return ? (
        <>
          {d.return.state}
          {d.return.amount && (
            <>
              {" "}
              <Amount value={d.return.amount.value} asset={d.return.amount.asset} />
            </>
          )}
        </>
      ) : (
        "—"
      ),
  },
  { header: "Updated", cell: (d) => formatDateTime(d.updated_at) },
];

/** One address: where it pays out (masked), its deposit address to copy, and its drains. */
export function LiquidationAddressDetail(props: { merchantId: string; addressId: string }) {
  const [loaded, reload] = useLoad(async () => {
    const [address, drains] = await Promise.all([
      liquidationApi.get(props.merchantId, props.addressId),
      liquidationApi.drains(props.merchantId, props.addressId),
    ]);
    return { address, drains };
  }, `${props.merchantId}:${props.addressId}`);
  const base = `/merchants/${props.merchantId}`;
  const backLink = <InAppLink to={`${base}/liquidation-addresses`}>← Liquidation addresses</InAppLink>;
  return (
    <DetailStates what="Liquidation address" backLink={backLink} loaded={loaded} retry={reload}>
      {({ address, drains }) => (
        <section aria-labelledby="liquidation-address-title">
          {backLink}
          <h1 id="liquidation-address-title">
            {address.asset} on {address.network}
          </h1>
          <DescriptionList
            card
            items={[
              { term: "Address", value: <CopyableValue value={address.address} what="deposit address" /> },
              { term: "Pays out", value: destinationText(address) },
              {
                term: "State",
                value: (
                  <>
                    <StatusText status={address.status} />
                    {address.disabled_at && <> since {formatDateTime(address.disabled_at)}</>}
                  </>
                ),
              },
              { term: "Return address", value: address.return_address ?? "—", valueClass: "mono" },
              { term: "Reference", value: address.reference ?? "—" },
              { term: "Id", value: <CopyableValue value={address.id} what="liquidation address id" /> },
            ]}
          />
          <h2>Drains</h2>
          <Table
            caption={`${drains.total} drains, newest first`}
            columns={drainColumns}
            rows={drains.items}
            idAttribute="data-drain"
            empty={{ title: "No drains yet.", children: "Each confirmed deposit to this address becomes a drain." }}
          />
        </section>
      )}
    </DetailStates>
  );
}
