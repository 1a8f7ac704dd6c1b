import { dateFormat } from "../components/DepositTable.tsx";
import { TableHead } from "../components/Fields.tsx";
import { LoadFailed } from "../components/LoadFailed.tsx";
import { Pager } from "../components/Pager.tsx";
import { useLoad } from "../components/useLoad.ts";
import { usePagedList } from "../components/usePagedList.ts";
import { type Customer, merchantApi } from "../merchant-api.ts";
import { href, linkHandler } from "../router.ts";

export function customerName(customer: Customer): string {
  const person = [customer.first_name, customer.last_name].filter(Boolean).join(" ");
  return customer.business_name ?? (person || customer.email || customer.id);
}

/** The merchant's customers, newest first, each opening its verification history. */
export function Customers(props: { merchantId: string }) {
  const { list: customers, reload, page, setPage } = usePagedList(merchantApi.customers, props.merchantId);
  if (customers.state === "loading") return <p class="muted">Loading customers…</p>;
  if (customers.state === "error") return <LoadFailed error={customers.error} retry={reload} />;
  const { items, total, total_pages: totalPages } = customers.value;
  return (
    <section aria-labelledby="customers-title">
      <h1 id="customers-title">Customers</h1>
      {items.length === 0 ? (
        <div class="empty">
          <p>No customers yet.</p>
          <p class="muted">
            Create them with <code>POST /v1/customers</code>; they appear here with their verification status.
          </p>
        </div>
      ) : (
        <table class="table">
          <caption class="visually-hidden">{total} customers, newest first</caption>
          <TableHead columns={["Customer", "Type", "Status", "Created"]} />
          <tbody>
            {items.map((customer) => {
              const to = `/merchants/${props.merchantId}/customers/${customer.id}`;
              return (
                <tr key={customer.id}>
                  <td data-label="Customer">
                    <a href={href(to)} onClick={linkHandler(to)}>
                      {customerName(customer)}
                    </a>
                  </td>
                  <td data-label="Type">{customer.type}</td>
                  <td data-label="Status">
                    <span class={`status ${customer.status.toLowerCase()}`}>{customer.status}</span>
                  </td>
                  <td data-label="Created">{dateFormat.format(new Date(customer.created_at))}</td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
      <Pager page={page} totalPages={totalPages} onPage={setPage} label="Customer" />
    </section>
  );
}

/** One customer: its details, then every verification submission with the status changes it went through. */
export function CustomerDetail(props: { merchantId: string; customerId: string }) {
  const key = `${props.merchantId}:${props.customerId}`;
  const [history, reload] = useLoad(async () => {
    const [customer, submissions] = await Promise.all([
      merchantApi.customer(props.merchantId, props.customerId),
      merchantApi.submissions(props.merchantId, props.customerId),
    ]);
    // Each submission's events (created, then every status change), oldest first.
    const events = await Promise.all(
      submissions.items.map((s) => merchantApi.eventsOf(props.merchantId, s.id).then((page) => page.items.reverse())),
    );
    return { customer, submissions: submissions.items.map((s, i) => ({ ...s, events: events[i] ?? [] })) };
  }, key);
  if (history.state === "loading") return <p class="muted">Loading the customer…</p>;
  if (history.state === "error") {
    if (history.error.status === 404 && history.error.message.includes("Customer")) {
      return (
        <section>
          <h1>Customer not found</h1>
          <p class="muted">There is no customer here that you can see.</p>
        </section>
      );
    }
    return <LoadFailed error={history.error} retry={reload} />;
  }
  const { customer, submissions } = history.value;
  const back = `/merchants/${props.merchantId}/customers`;
  return (
    <section aria-labelledby="customer-title">
      <a href={href(back)} onClick={linkHandler(back)}>
        ← Customers
      </a>
      <h1 id="customer-title">{customerName(customer)}</h1>
      <dl class="details card">
        <dt>Status</dt>
        <dd>
          <span class={`status ${customer.status.toLowerCase()}`}>{customer.status}</span>
        </dd>
        <dt>Type</dt>
        <dd>{customer.type}</dd>
        <dt>Email</dt>
        <dd>{customer.email ?? "—"}</dd>
        <dt>Reference</dt>
        <dd>{customer.external_reference ?? "—"}</dd>
        <dt>Tiers complete</dt>
        <dd>
          Tier 1: {customer.tier_1_complete ? "yes" : "no"}, tier 2: {customer.tier_2_complete ? "yes" : "no"}
        </dd>
        <dt>Id</dt>
        <dd class="mono">{customer.id}</dd>
      </dl>
      <h2>Verification history</h2>
      {submissions.length === 0 ? (
        <div class="empty">
          <p>No verification submitted yet.</p>
          <p class="muted">
            Submissions made with <code>POST /v1/customers/{"{id}"}/verification-submissions</code> appear here.
          </p>
        </div>
      ) : (
        <ol class="history">
          {submissions.map((submission) => (
            <li key={submission.id} class="card">
              <h3>
                {submission.tier} submission:{" "}
                <span class={`status ${submission.status.toLowerCase()}`}>{submission.status}</span>
              </h3>
              {submission.rejection_reasons && submission.rejection_reasons.length > 0 && (
                <p>Reasons: {submission.rejection_reasons.join(", ")}</p>
              )}
              <ol class="timeline" aria-label="Status changes">
                {submission.events.map((event) => (
                  <li key={event.id}>
                    <time dateTime={event.created_at}>{dateFormat.format(new Date(event.created_at))}</time>{" "}
                    {event.type === "verification_submission.created" ? "Submitted" : "Status changed"}:{" "}
                    <strong>{String(event.data.status ?? "")}</strong>
                  </li>
                ))}
              </ol>
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}
