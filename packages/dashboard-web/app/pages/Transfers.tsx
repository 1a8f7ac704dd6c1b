import { useState } from "preact/hooks";
import { dateFormat } from "../components/DepositTable.tsx";
import { errorText } from "../components/errorText.ts";
import { TableHead } from "../components/Fields.tsx";
import { LoadFailed } from "../components/LoadFailed.tsx";
import { Notice } from "../components/Notice.tsx";
import { Pager } from "../components/Pager.tsx";
import { usePagedList } from "../components/usePagedList.ts";
import { type Money, merchantApi, type Transfer, type TransferFunding } from "../merchant-api.ts";

const money = (m: Money) => `${m.value} ${m.currency} (${m.network})`;

/** The fields of a bank transfer's or a crypto deposit's instructions, as the API names them. */
function detailRows(fields: Record<string, string> | null) {
  return Object.entries(fields ?? {}).map(([field, value]) => [
    <dt key={`${field}-t`}>{field.replace(/_/g, " ")}</dt>,
    <dd key={`${field}-d`} class="mono break">
      {value}
    </dd>,
  ]);
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
          {!error && !intent && <p class="muted">Loading…</p>}
          {intent && (
            <dl class="details">
              <dt>Intent</dt>
              <dd>
                <span class={`status ${intent.status.toLowerCase()}`}>{intent.status}</span>
              </dd>
              <dt>Pay</dt>
              <dd>{money(intent.required_amount)}</dd>
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

/** The merchant's transfers, newest first, each with its funding instructions on demand. */
export function Transfers(props: { merchantId: string }) {
  const { list: transfers, reload, page, setPage } = usePagedList(merchantApi.transfers, props.merchantId);
  if (transfers.state === "loading") return <p class="muted">Loading transfers…</p>;
  if (transfers.state === "error") return <LoadFailed error={transfers.error} retry={reload} />;
  const { items, total, total_pages: totalPages } = transfers.value;
  return (
    <section aria-labelledby="transfers-title">
      <h1 id="transfers-title">Transfers</h1>
      {items.length === 0 ? (
        <div class="empty">
          <p>No transfers yet.</p>
          <p class="muted">
            Transfers made from a quote (<code>POST /v1/transfers</code>) appear here with how to fund them.
          </p>
        </div>
      ) : (
        <table class="table">
          <caption class="visually-hidden">{total} transfers, newest first</caption>
          <TableHead columns={["Pays", "Receives", "Fee", "Status", "Created", "Funding"]} />
          <tbody>
            {items.map((transfer) => (
              <tr key={transfer.id}>
                <td data-label="Pays" class="mono">
                  {money(transfer.source_amount)}
                </td>
                <td data-label="Receives" class="mono">
                  {money(transfer.destination_amount)}
                </td>
                <td data-label="Fee" class="mono">
                  {money(transfer.fee)}
                </td>
                <td data-label="Status">
                  <span class={`status ${transfer.status.toLowerCase()}`}>{transfer.status}</span>
                </td>
                <td data-label="Created">{dateFormat.format(new Date(transfer.created_at))}</td>
                <td data-label="Funding">
                  <Funding merchantId={props.merchantId} transfer={transfer} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <Pager page={page} totalPages={totalPages} onPage={setPage} label="Transfer" />
    </section>
  );
}
