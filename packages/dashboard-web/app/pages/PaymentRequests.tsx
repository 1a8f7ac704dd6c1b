import { useState } from "preact/hooks";
import type { User } from "../api.ts";
import { dateFormat } from "../components/DepositTable.tsx";
import { TableHead, TextField } from "../components/Fields.tsx";
import { LoadFailed } from "../components/LoadFailed.tsx";
import { Notice } from "../components/Notice.tsx";
import { Pager } from "../components/Pager.tsx";
import { useAction } from "../components/useAction.ts";
import { useLoad } from "../components/useLoad.ts";
import { usePagedList } from "../components/usePagedList.ts";
import { canRequestPayments, type PaymentRequest, paymentRequestsApi } from "../payment-requests-api.ts";
import { href, linkHandler } from "../router.ts";

/** A link the merchant sends payers: shown, with a button that copies it (and says so). */
function PayLink(props: { url: string; label: string }) {
  const [copied, setCopied] = useState(false);
  const copy = async () => {
    await navigator.clipboard.writeText(props.url);
    setCopied(true);
  };
  return (
    <span class="pay-link">
      <a href={props.url} class="mono break" target="_blank" rel="noreferrer">
        {props.url}
      </a>{" "}
      <button type="button" class="button secondary" onClick={copy}>
        Copy link<span class="visually-hidden"> of {props.label}</span>
      </button>
      <span role="status" class="muted">
        {copied ? " Copied." : ""}
      </span>
    </span>
  );
}

const amountOf = (r: PaymentRequest) => `${r.amount} ${r.currency}`;

/** The form that asks for an amount: the request gets every configured asset; its link is shown to copy. */
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
    if (answer) {
      setCreated(answer);
      setAmount("");
      props.onCreated();
    }
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
          Payment request for {amountOf(created)} created. Send the payer this link:{" "}
          <PayLink url={created.hosted_url} label={`the request for ${amountOf(created)}`} />
        </Notice>
      )}
    </>
  );
}

/** The merchant's payment requests, newest first, and the form to create one. */
export function PaymentRequests(props: { merchantId: string; user: User }) {
  const { list, reload, page, setPage } = usePagedList(paymentRequestsApi.list, props.merchantId);
  if (list.state === "error" && list.error.status === 404) return <LoadFailed error={list.error} retry={reload} />;
  return (
    <section aria-labelledby="payment-requests-title">
      <h1 id="payment-requests-title">Payment requests</h1>
      {canRequestPayments(props.user.role) ? (
        <CreateRequest merchantId={props.merchantId} onCreated={reload} />
      ) : (
        <p class="muted role-note">Your role ({props.user.role}) can view payment requests but not create them.</p>
      )}
      {list.state === "loading" && <p class="muted">Loading payment requests…</p>}
      {list.state === "error" && <LoadFailed error={list.error} retry={reload} />}
      {list.state === "ready" && list.value.items.length === 0 && (
        <div class="empty">
          <p>No payment requests yet.</p>
          <p class="muted">
            A request asks a payer for an amount on a hosted page; it is paid in the asset they choose.
          </p>
        </div>
      )}
      {list.state === "ready" && list.value.items.length > 0 && (
        <>
          <table class="table">
            <caption class="visually-hidden">{list.value.total} payment requests, newest first</caption>
            <TableHead columns={["Amount", "Status", "Paid", "Reference", "Created", "Request"]} />
            <tbody>
              {list.value.items.map((r) => {
                const to = `/merchants/${props.merchantId}/payment-requests/${r.id}`;
                return (
                  <tr key={r.id} data-request={r.id}>
                    <td data-label="Amount" class="mono">
                      {amountOf(r)}
                    </td>
                    <td data-label="Status">
                      <span class={`status ${r.status}`}>{r.status}</span>
                    </td>
                    <td data-label="Paid" class="mono">
                      {r.amount_paid} {r.currency}
                    </td>
                    <td data-label="Reference">{r.reference ?? "—"}</td>
                    <td data-label="Created">{dateFormat.format(new Date(r.created_at))}</td>
                    <td data-label="Request">
                      <a href={href(to)} onClick={linkHandler(to)}>
                        Details<span class="visually-hidden"> of the request for {amountOf(r)}</span>
                      </a>
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
          <Pager page={page} totalPages={list.value.total_pages} onPage={setPage} label="Payment request pages" />
        </>
      )}
    </section>
  );
}

/** One request: its link to copy, figures, options (address, amount) and payments; cancel while nobody pays. */
export function PaymentRequestDetail(props: { merchantId: string; requestId: string; user: User }) {
  const [request, reload] = useLoad(
    () => paymentRequestsApi.get(props.merchantId, props.requestId),
    `${props.merchantId}:${props.requestId}`,
  );
  const { busy, error, run } = useAction();
  if (request.state === "loading") return <p class="muted">Loading the payment request…</p>;
  if (request.state === "error") return <LoadFailed error={request.error} retry={reload} />;
  const r = request.value;
  const cancel = async () => {
    if (await run(() => paymentRequestsApi.cancel(props.merchantId, r.id))) reload();
  };
  return (
    <section aria-labelledby="request-title">
      <h1 id="request-title">Payment request for {amountOf(r)}</h1>
      <dl class="details">
        <dt>Status</dt>
        <dd>
          <span class={`status ${r.status}`}>{r.status}</span>
        </dd>
        <dt>Link for the payer</dt>
        <dd>
          <PayLink url={r.hosted_url} label="this request" />
        </dd>
        <dt>Paid</dt>
        <dd class="mono">
          {r.amount_paid} {r.currency} (missing {r.amount_missing}, excess {r.amount_excess})
        </dd>
        <dt>Description</dt>
        <dd>{r.description ?? "—"}</dd>
        <dt>Reference</dt>
        <dd>{r.reference ?? "—"}</dd>
        <dt>Expires</dt>
        <dd>{dateFormat.format(new Date(r.expires_at))}</dd>
      </dl>
      {canRequestPayments(props.user.role) && (r.status === "open" || r.status === "underpaid") && (
        <button type="button" class="button secondary" disabled={busy} onClick={cancel}>
          Cancel this request
        </button>
      )}
      {error && <Notice kind="error">{error}</Notice>}
      <h2>Options</h2>
      <table class="table">
        <caption class="visually-hidden">What the payer may pay with</caption>
        <TableHead columns={["Asset", "Network", "Amount", "Address"]} />
        <tbody>
          {r.options.map((o) => (
            <tr key={`${o.network}:${o.asset}`}>
              <td data-label="Asset">{o.asset}</td>
              <td data-label="Network">{o.network}</td>
              <td data-label="Amount" class="mono">
                {o.amount_due}
              </td>
              <td data-label="Address" class="mono break">
                {o.address}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <h2>Payments</h2>
      {r.payments.length === 0 ? (
        <p class="muted">No payment yet.</p>
      ) : (
        <table class="table">
          <caption class="visually-hidden">Payments to this request's addresses</caption>
          <TableHead columns={["Amount", "Network", "Status", "Confirmations", "Counted"]} />
          <tbody>
            {r.payments.map((p) => (
              <tr key={p.deposit_id}>
                <td data-label="Amount" class="mono">
                  {p.amount} {p.asset}
                </td>
                <td data-label="Network">{p.network}</td>
                <td data-label="Status">{p.status}</td>
                <td data-label="Confirmations">
                  {p.confirmations} of {p.required_confirmations}
                </td>
                <td data-label="Counted">{p.counted ? "yes" : `no (${p.flag ?? "reversed"})`}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
