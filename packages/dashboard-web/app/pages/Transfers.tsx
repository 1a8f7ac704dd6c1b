import { useState } from "preact/hooks";
import type { User } from "../api.ts";
import { Amount } from "../components/Amount.tsx";
import { CopyButton } from "../components/CopyButton.tsx";
import { errorText, formatDateTime } from "../components/format.ts";
import { Skeleton } from "../components/Loading.tsx";
import { Notice } from "../components/Notice.tsx";
import { PagedListPage } from "../components/PagedListPage.tsx";
import type { Column } from "../components/Table.tsx";
import { type Money, merchantApi, type Transfer, type TransferFunding } from "../merchant-api.ts";
import { operatorApi, type TransferBeneficiary } from "../operator-api.ts";

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

/**
 * A crypto transfer's travel rule data, for the platform's operator (admin) only: decrypted on
 * demand by the server, which records each reading in the audit log.
 */
function Beneficiary(props: { transfer: Transfer }) {
  const [shown, setShown] = useState<TransferBeneficiary | undefined>();
  const [error, setError] = useState<string | undefined>();
  if (!props.transfer.destination.beneficiary_on_file) return <span class="muted">none</span>;
  const show = async () => {
    try {
      setShown(await operatorApi.transferBeneficiary(props.transfer.id));
    } catch (e) {
      setError(errorText(e));
    }
  };
  const b = shown?.beneficiary;
  if (error) return <Notice kind="error">{error}</Notice>;
  if (!shown)
    return (
      <button type="button" class="button link" onClick={show}>
        Show beneficiary (audited)
      </button>
    );
  if (!b) return <span class="muted">none</span>;
  return (
    <span>
      {b.type === "BUSINESS" ? `${b.name}, legal name ${b.legal_name} (${b.country})` : b.name}{" "}
      <span class="muted">({b.type.toLowerCase()})</span>
    </span>
  );
}

const columns = (merchantId: string, user: User): ReadonlyArray<Column<Transfer>> => [
  { header: "Pays", cell: (transfer) => <MoneyOn money={transfer.source_amount} /> },
  { header: "Receives", cell: (transfer) => <MoneyOn money={transfer.destination_amount} /> },
  { header: "Fee", cell: (transfer) => <MoneyOn money={transfer.fee} /> },
  {
    header: "Status",
    cell: (transfer) => <span class={`status ${transfer.status.toLowerCase()}`}>{transfer.status}</span>,
  },
  { header: "Created", cell: (transfer) => formatDateTime(transfer.created_at) },
  { header: "Funding", cell: (transfer) => <Funding merchantId={merchantId} transfer={transfer} /> },
  ...(user.role === "admin"
    ? [{ header: "Beneficiary", cell: (transfer: Transfer) => <Beneficiary transfer={transfer} /> }]
    : []),
];

/**
 * The merchant's transfers, newest first, each with its funding instructions on demand (and, for
 * the platform's operator, its travel rule beneficiary).
 */
export function Transfers(props: { merchantId: string; user: User }) {
  return (
    <PagedListPage
      merchantId={props.merchantId}
      title="Transfers"
      load={merchantApi.transfers}
      columns={columns(props.merchantId, props.user)}
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
