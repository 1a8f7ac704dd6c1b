import { useState } from "preact/hooks";
import type { User } from "../api.ts";
import { Amount } from "../components/Amount.tsx";
import { CopyableValue } from "../components/CopyableValue.tsx";
import { CopyButton } from "../components/CopyButton.tsx";
import { createdColumn } from "../components/columns.tsx";
import { DescriptionList } from "../components/DescriptionList.tsx";
import { TextField } from "../components/Fields.tsx";
import { formatDateTime } from "../components/format.ts";
import { LoadFailed } from "../components/LoadFailed.tsx";
import { Skeleton } from "../components/Loading.tsx";
import { Notice } from "../components/Notice.tsx";
import { PagedListPage } from "../components/PagedListPage.tsx";
import { type Column, Table } from "../components/Table.tsx";
import { useAction } from "../components/useAction.ts";
import { useLoad } from "../components/useLoad.ts";
import { canRequestPayments, type PaymentRequest, paymentRequestsApi } from "../payment-requests-api.ts";
import { href, linkHandler } from "../router.ts";

/** The link a merchant sends the payer, and a button that copies it. */
function PayLink(props: { url: string }) {
  return (
    <span class="pay-link">
      <a href={props.url} class="mono break" target="_blank" rel="noreferrer">
        {props.url}
      </a>{" "}
      <CopyButton value={props.url} what="payment link" />
    </span>
  );
}

/** The form that asks for an amount in USD (every configured asset accepted); the new link shown to copy. */
function CreateRequest(props: { merchantId: string; onCreated: () => void }) {
  const [amount, setAmount] = useState("");
  const [description, setDescription] = useState("");
  const [reference, setReference] = useState("");
  const [created, setCreated] = useState<PaymentRequest | undefined>();
  const { busy, error, run } = useAction();
  const submit = async (event: Event) => {
    event.preventDefault();
    const answer = await run(() =>
      paymentRequestsApi.create(props.merchantId, {
        amount: amount.trim(),
        currency: "USD",
        ...(description.trim() ? { description: description.trim() } : {}),
        ...(reference.trim() ? { reference: reference.trim() } : {}),
      }),
    );
    if (!answer) return;
    setCreated(answer);
    setAmount("");
    props.onCreated();
  };
  return (
    <>
      <form class="card inline-form" onSubmit={submit} aria-labelledby="new-request-title">
        <h2 id="new-request-title" class="visually-hidden">
          New payment request
        </h2>
        <TextField id="request-amount" label="Amount (USD)" decimal value={amount} onInput={setAmount} />
        <div class="field grow">
          <label for="request-description">Description (shown to the payer)</label>
          <input id="request-description" value={description} onInput={(e) => setDescription(e.currentTarget.value)} />
        </div>
        <div class="field">
          <label for="request-reference">Your reference</label>
          <input id="request-reference" value={reference} onInput={(e) => setReference(e.currentTarget.value)} />
        </div>
        <button type="submit" class="button primary" disabled={busy}>
          Create payment request
        </button>
      </form>
      {error && <Notice kind="error">{error}</Notice>}
      {created && (
        <Notice kind="success">
          Payment request for {created.amount} {created.currency} created. Send the payer this link:{" "}
          <PayLink url={created.hosted_url} />
        </Notice>
      )}
    </>
  );
}

const detailPath = (merchantId: string, id: string) => `/merchants/${merchantId}/payment-requests/${id}`;

/** The merchant's payment requests, newest first, and the form to create one. */
export function PaymentRequests(props: { merchantId: string; user: User }) {
  const columns: Array<Column<PaymentRequest>> = [
    { header: "Amount", cell: (r) => <Amount value={r.amount} asset={r.currency} />, rowHeader: true },
    { header: "Status", cell: (r) => <span class={`status ${r.status}`}>{r.status}</span> },
    { header: "Paid", cell: (r) => <Amount value={r.amount_paid} asset={r.currency} /> },
    { header: "Reference", cell: (r) => r.reference ?? "—" },
    createdColumn(),
    {
      header: "Request",
      cell: (r) => (
        <a href={href(detailPath(props.merchantId, r.id))} onClick={linkHandler(detailPath(props.merchantId, r.id))}>
          Details<span class="visually-hidden"> of the request for {`${r.amount} ${r.currency}`}</span>
        </a>
      ),
    },
  ];
  return (
    <PagedListPage
      merchantId={props.merchantId}
      title="Payment requests"
      load={paymentRequestsApi.list}
      columns={columns}
      idAttribute="data-request"
      empty={{
        title: "No payment requests yet.",
        children: (
          <p class="muted">A request asks a payer for an amount on a hosted page, paid in the asset they choose.</p>
        ),
      }}
      head={(reload) =>
        canRequestPayments(props.user.role) ? (
          <CreateRequest merchantId={props.merchantId} onCreated={reload} />
        ) : (
          <p class="muted role-note">Your role ({props.user.role}) can view payment requests but not create them.</p>
        )
      }
    />
  );
}

/** One request: its link to copy, figures, options and payments; cancel while nobody pays it. */
export function PaymentRequestDetail(props: { merchantId: string; requestId: string; user: User }) {
  const [request, reload] = useLoad(
    () => paymentRequestsApi.get(props.merchantId, props.requestId),
    `${props.merchantId}:${props.requestId}`,
  );
  const { busy, error, run } = useAction();
  if (request.state === "loading") return <Skeleton what="the payment request" />;
  if (request.state === "error") return <LoadFailed error={request.error} retry={reload} />;
  const r = request.value;
  const cancel = async () => {
    if (await run(() => paymentRequestsApi.cancel(props.merchantId, r.id))) reload();
  };
  type Option = PaymentRequest["options"][number];
  type Payment = PaymentRequest["payments"][number];
  return (
    <section aria-labelledby="request-title">
      <h1 id="request-title">
        Payment request for {r.amount} {r.currency}
      </h1>
      <DescriptionList
        items={[
          { term: "Status", value: <span class={`status ${r.status}`}>{r.status}</span> },
          { term: "Link for the payer", value: <PayLink url={r.hosted_url} /> },
          {
            term: "Paid",
            value: (
              <>
                <Amount value={r.amount_paid} asset={r.currency} /> (missing{" "}
                <Amount value={r.amount_missing} asset={r.currency} />, excess{" "}
                <Amount value={r.amount_excess} asset={r.currency} />)
              </>
            ),
          },
          { term: "Description", value: r.description ?? "—" },
          { term: "Reference", value: r.reference ?? "—" },
          { term: "Expires", value: formatDateTime(r.expires_at) },
        ]}
      />
      {canRequestPayments(props.user.role) && (r.status === "open" || r.status === "underpaid") && (
        <button type="button" class="button secondary" disabled={busy} onClick={cancel}>
          Cancel this request
        </button>
      )}
      {error && <Notice kind="error">{error}</Notice>}
      <h2>Options</h2>
      <Table<Option>
        caption="What the payer may pay with"
        columns={[
          { header: "Asset", cell: (o) => o.asset, rowHeader: true },
          { header: "Network", cell: (o) => o.network },
          { header: "Amount", cell: (o) => <Amount value={o.amount_due} asset={o.asset} /> },
          {
            header: "Address",
            cell: (o) => <CopyableValue value={o.address} what={`${o.network} address`} breakable />,
          },
        ]}
        rows={r.options}
        rowKey={(o) => `${o.network}:${o.asset}`}
      />
      <h2>Payments</h2>
      <Table<Payment>
        caption="Payments to this request's addresses"
        columns={[
          { header: "Amount", cell: (p) => <Amount value={p.amount} asset={p.asset} />, rowHeader: true },
          { header: "Network", cell: (p) => p.network },
          { header: "Status", cell: (p) => p.status },
          { header: "Confirmations", cell: (p) => `${p.confirmations} of ${p.required_confirmations}` },
          { header: "Counted", cell: (p) => (p.counted ? "yes" : `no (${p.flag ?? "reversed"})`) },
        ]}
        rows={r.payments}
        rowKey={(p) => p.deposit_id}
        empty={{ title: "No payment yet." }}
      />
    </section>
  );
}
