import { CopyableValue } from "../components/CopyableValue.tsx";
import { createdColumn, statusColumn } from "../components/columns.tsx";
import { DepositTable } from "../components/DepositTable.tsx";
import { DescriptionList } from "../components/DescriptionList.tsx";
import { DetailStates } from "../components/DetailStates.tsx";
import { formatDateTime } from "../components/format.ts";
import { InAppLink } from "../components/InAppLink.tsx";
import { Empty } from "../components/Loading.tsx";
import { PagedListPage } from "../components/PagedListPage.tsx";
import { StatusText } from "../components/StatusText.tsx";
import { type Column, Table } from "../components/Table.tsx";
import { useLoad } from "../components/useLoad.ts";
import { type Customer, merchantApi } from "../merchant-api.ts";
import { virtualAccountApi } from "../virtual-account-api.ts";
import { VirtualAccountTable } from "./VirtualAccounts.tsx";
import { walletColumns } from "./Wallets.tsx";

export function customerName(customer: Customer): string {
  const person = [customer.first_name, customer.last_name].filter(Boolean).join(" ");
  return customer.business_name ?? (person || customer.email || customer.id);
}

const columns = (merchantId: string): ReadonlyArray<Column<Customer>> => [
  {
    header: "Customer",
    cell: (customer) => (
      <InAppLink to={`/merchants/${merchantId}/customers/${customer.id}`}>{customerName(customer)}</InAppLink>
    ),
  },
  { header: "Type", cell: (customer) => customer.type },
  statusColumn(),
  createdColumn(),
];

/** The merchant's customers, newest first, each opening its verification history. */
export function Customers(props: { merchantId: string }) {
  return (
    <PagedListPage
      merchantId={props.merchantId}
      title="Customers"
      load={merchantApi.customers}
      columns={columns(props.merchantId)}
      empty={{
        title: "No customers yet.",
        children: (
          <>
            Create them with <code>POST /v1/customers</code>; they appear here with their verification status.
          </>
        ),
      }}
    />
  );
}

/** How many of a customer's newest deposits its page lists (each opens the deposit's page). */
const CUSTOMER_DEPOSITS = 10;

/** One customer: its details, its wallets, newest deposits and virtual accounts, then every verification submission with the status changes it went through. */
export function CustomerDetail(props: { merchantId: string; customerId: string }) {
  const key = `${props.merchantId}:${props.customerId}`;
  const [history, reload] = useLoad(async () => {
    const [customer, submissions, wallets, accounts, deposits] = await Promise.all([
      merchantApi.customer(props.merchantId, props.customerId),
      merchantApi.submissions(props.merchantId, props.customerId),
      merchantApi.customerWallets(props.merchantId, props.customerId),
      virtualAccountApi.list(props.merchantId, 1, props.customerId),
      merchantApi.deposits(props.merchantId, { customer_id: props.customerId, limit: String(CUSTOMER_DEPOSITS) }),
    ]);
    // Each submission's events (created, then every status change), oldest first.
    const events = await Promise.all(
      submissions.items.map((s) => merchantApi.eventsOf(props.merchantId, s.id).then((page) => page.items.reverse())),
    );
    return {
      customer,
      wallets: wallets.items,
      accounts: accounts.items,
      deposits: deposits.items,
      submissions: submissions.items.map((s, i) => ({ ...s, events: events[i] ?? [] })),
    };
  }, key);
  const back = `/merchants/${props.merchantId}/customers`;
  const backLink = <InAppLink to={back}>← Customers</InAppLink>;
  return (
    <DetailStates what="Customer" backLink={backLink} loaded={history} retry={reload}>
      {({ customer, submissions, wallets, accounts, deposits }) => (
        <section aria-labelledby="customer-title">
          {backLink}
          <h1 id="customer-title">{customerName(customer)}</h1>
          <DescriptionList
            card
            items={[
              { term: "Status", value: <StatusText status={customer.status} /> },
              { term: "Type", value: customer.type },
              { term: "Email", value: customer.email ?? "—" },
              { term: "Reference", value: customer.external_reference ?? "—" },
              {
                term: "Tiers complete",
                value: `Tier 1: ${customer.tier_1_complete ? "yes" : "no"}, tier 2: ${customer.tier_2_complete ? "yes" : "no"}`,
              },
              { term: "Id", value: <CopyableValue value={customer.id} what="customer id" /> },
            ]}
          />
          <h2>Wallets</h2>
          <Table
            caption={`${wallets.length} wallets of the customer`}
            columns={walletColumns(props.merchantId)}
            rows={wallets}
            empty={{
              title: "No wallets yet.",
              children: (
                <>
                  Create one with <code>POST /v1/wallets</code>; its deposits are on the wallet's page.
                </>
              ),
            }}
          />
          <h2>Latest deposits</h2>
          {deposits.length === 0 ? (
            <Empty title="No deposits yet.">Deposits to the customer's wallets appear here.</Empty>
          ) : (
            <DepositTable
              deposits={deposits}
              caption={`The customer's ${deposits.length} newest deposits (at most ${CUSTOMER_DEPOSITS}), newest first`}
            />
          )}
          <h2>Virtual accounts</h2>
          <VirtualAccountTable
            merchantId={props.merchantId}
            accounts={accounts}
            caption={`${accounts.length} virtual accounts of the customer`}
          />
          <h2>Verification history</h2>
          {submissions.length === 0 ? (
            <Empty title="No verification submitted yet.">
              Submissions made with <code>POST /v1/customers/{"{id}"}/verification-submissions</code> appear here.
            </Empty>
          ) : (
            <ol class="history">
              {submissions.map((submission) => (
                <li key={submission.id} class="card">
                  <h3>
                    {submission.tier} submission: <StatusText status={submission.status} />
                  </h3>
                  {submission.rejection_reasons && submission.rejection_reasons.length > 0 && (
                    <p>Reasons: {submission.rejection_reasons.join(", ")}</p>
                  )}
                  <ol class="timeline" aria-label="Status changes">
                    {submission.events.map((event) => (
                      <li key={event.id}>
                        <time dateTime={event.created_at}>{formatDateTime(event.created_at)}</time>{" "}
                        {event.type === "verification_submission.created" ? "Submitted" : "Status changed"}:{" "}
                        <strong>{"status" in event.data ? String(event.data.status) : ""}</strong>
                      </li>
                    ))}
                  </ol>
                </li>
              ))}
            </ol>
          )}
        </section>
      )}
    </DetailStates>
  );
}
