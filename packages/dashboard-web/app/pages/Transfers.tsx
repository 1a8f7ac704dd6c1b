import { useState } from "preact/hooks";
import { Amount } from "../components/Amount.tsx";
import { CopyButton } from "../components/CopyButton.tsx";
import { errorText, formatDateTime } from "../components/format.ts";
import { Skeleton } from "../components/Loading.tsx";
import { Notice } from "../components/Notice.tsx";
import { PagedListPage } from "../components/PagedListPage.tsx";
import type { Column } from "../components/Table.tsx";
import { type Money, merchantApi, type Transfer, type TransferFunding } from "../merchant-api.ts";

function MoneyOn(props: { money: Money }) {
  return (
    <>
      <Amount value={props.money.value} asset={props.money.currency} />{" "}
      <span class="muted">({props.money.network})</span>
    </>
  );
}

/** The fields of a bank transfer's or a crypto deposit's instructions, as the API names them, each to copy. */
function detailRows(fields: Record<string, string> | null) {
  return Object.entries(fields ?? {}).map(([field, value]) => {
    const name = field.replace(/_/g, " ");
    return [
      <dt key={`${field}-t`}>{name}</dt>,
      <dd key={`${field}-d`}>
        <span class="mono break">{value}</span> <CopyButton value={value} what={name} />
      </dd>,
    ];
  });
}

/** A transfer's funding instructions, as GET /v1/transfers/{id}/funding answers them (bank details masked there). */
function Funding(props: { merchantId: string; transfer: Transfer }) {
  const [funding, setFunding] = useState<TransferFunding | undefined>();
  const [error, setError] = useState<string | undefined>();
  const [open, setOpen] = useState(false);
  const toggle = async () => {
    setOpen(!open);
    if (open || funding) return;
    try {
      setFunding(await merchantApi.funding(props.merchantId, props.transfer.id));
    } catch (e) {
      setError(errorText(e));
    }
  };
  const intent = funding?.intent;
  const regionId = `funding-${props.transfer.id}`;
  return (
    <>
      <button type="button" class="button link" aria-expanded={open} aria-controls={regionId} onClick={toggle}>
        {open ? "Hide funding" : "Funding instructions"}
      </button>
      {open && (
        <div id={regionId} class="funding">
          {error && <Notice kind="error">{error}</Notice>}
          {!error && !intent && <Skeleton what="the funding instructions" rows={2} />}
          {intent && (
            <dl class="details">
              <dt>Intent</dt>
              <dd>
                <span class={`status ${intent.status.toLowerCase()}`}>{intent.status}</span>
              </dd>
              <dt>Pay</dt>
              <dd>
                <MoneyOn money={intent.required_amount} />
              </dd>
              {detailRows(intent.bank_transfer)}
              {detailRows(intent.crypto_deposit)}
              {!intent.bank_transfer && !intent.crypto_deposit && (
                <>
                  <dt>Instructions</dt>
                  <dd>Being provisioned; look again in a moment.</dd>
                </>
              )}
              {intent.flag && (
                <>
                  <dt>Flag</dt>
                  <dd>
                    {intent.flag.code}: {intent.flag.message}
                  </dd>
                </>
              )}
            </dl>
          )}
        </div>
      )}
    </>
  );
}

const columns = (merchantId: string): ReadonlyArray<Column<Transfer>> => [
  { header: "Pays", cell: (transfer) => <MoneyOn money={transfer.source_amount} /> },
  { header: "Receives", cell: (transfer) => <MoneyOn money={transfer.destination_amount} /> },
  { header: "Fee", cell: (transfer) => <MoneyOn money={transfer.fee} /> },
  {
    header: "Status",
    cell: (transfer) => <span class={`status ${transfer.status.toLowerCase()}`}>{transfer.status}</span>,
  },
  { header: "Created", cell: (transfer) => formatDateTime(transfer.created_at) },
  { header: "Funding", cell: (transfer) => <Funding merchantId={merchantId} transfer={transfer} /> },
];

/** The merchant's transfers, newest first, each with its funding instructions on demand. */
export function Transfers(props: { merchantId: string }) {
  return (
    <PagedListPage
      merchantId={props.merchantId}
      title="Transfers"
      load={merchantApi.transfers}
      columns={columns(props.merchantId)}
      empty={{
        title: "No transfers yet.",
        children: (
          <>
            Transfers made from a quote (<code>POST /v1/transfers</code>) appear here with how to fund them.
          </>
        ),
      }}
    />
  );
}
