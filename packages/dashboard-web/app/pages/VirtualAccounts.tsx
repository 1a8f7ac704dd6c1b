import { Fragment } from "preact";
import { Amount } from "../components/Amount.tsx";
import { CopyableValue } from "../components/CopyableValue.tsx";
import { CopyButton } from "../components/CopyButton.tsx";
import { statusColumn } from "../components/columns.tsx";
import { DescriptionList } from "../components/DescriptionList.tsx";
import { DetailStates } from "../components/DetailStates.tsx";
import { formatDateTime } from "../components/format.ts";
import { InAppLink } from "../components/InAppLink.tsx";
import { PagedListPage } from "../components/PagedListPage.tsx";
import { StatusText } from "../components/StatusText.tsx";
import { type Column, Table } from "../components/Table.tsx";
import { useLoad } from "../components/useLoad.ts";
import { type Customer, merchantApi } from "../merchant-api.ts";
import { type BankDeposit, type VirtualAccount, virtualAccountApi } from "../virtual-account-api.ts";
import { customerName } from "./Customers.tsx";

const accountNumber = (account: VirtualAccount) =>
  "account_number" in account.deposit_instructions
    ? account.deposit_instructions.account_number
    : account.deposit_instructions.bank_account_number;

/** An account with its customer, when the page shows whose it is. */
type AccountRow = VirtualAccount & { customer?: Customer | undefined };

/** An account's columns: the account opens its page; a Customer column when `showCustomer`. */
function accountColumns(merchantId: string, showCustomer: boolean): Array<Column<AccountRow>> {
  const base = `/merchants/${merchantId}`;
  return [
    {
      header: "Account",
      rowHeader: true,
      cell: (a) => (
        <InAppLink
          to={`${base}/virtual-accounts/${a.id}`}
        >{`${a.deposit_instructions.bank_name} ${accountNumber(a)}`}</InAppLink>
      ),
    },
    ...(showCustomer
      ? [
          {
            header: "Customer",
            cell: (a: AccountRow) => {
              const customer = a.customer;
              return (
                <InAppLink to={`${base}/customers/${a.customer_id}`}>
                  {customer ? customerName(customer) : a.customer_id}
                </InAppLink>
              );
            },
          },
        ]
      : []),
    statusColumn(),
    { header: "Rails", cell: (a) => a.supported_rails.join(", ") },
    { header: "Opened", cell: (a) => formatDateTime(a.created_at) },
  ];
}

const NO_ACCOUNTS = {
  title: "No virtual accounts yet.",
  children: (
    <>
      A Tier 2 verified customer gets one with <code>POST /v1/virtual-accounts</code>.
    </>
  ),
};

/** A customer's accounts (on its page): each opens its own. */
export function VirtualAccountTable(props: { merchantId: string; accounts: readonly AccountRow[]; caption: string }) {
  return (
    <Table
      caption={props.caption}
      columns={accountColumns(props.merchantId, false)}
      rows={props.accounts}
      idAttribute="data-virtual-account"
      empty={NO_ACCOUNTS}
    />
  );
}

/** The merchant's USD virtual accounts, newest first, with their customers. */
export function VirtualAccounts(props: { merchantId: string }) {
  const load = async (merchantId: string, page: number) => {
    const accounts = await virtualAccountApi.list(merchantId, page);
    const ids = [...new Set(accounts.items.map((a) => a.customer_id))];
    const customers = await Promise.all(ids.map((id) => merchantApi.customer(merchantId, id)));
    const byId = new Map(customers.map((c) => [c.id, c]));
    return { ...accounts, items: accounts.items.map((a) => ({ ...a, customer: byId.get(a.customer_id) })) };
  };
  return (
    <PagedListPage
      merchantId={props.merchantId}
      title="Virtual accounts"
      load={load}
      columns={accountColumns(props.merchantId, true)}
      idAttribute="data-virtual-account"
      empty={NO_ACCOUNTS}
    />
  );
}

const depositColumns: ReadonlyArray<Column<BankDeposit>> = [
  { header: "Amount", cell: (d) => <Amount value={d.amount} asset={d.currency} />, class: "mono" },
  { header: "Reference", cell: (d) => d.reference ?? "—" },
  statusColumn(),
  { header: "Credited", cell: (d) => formatDateTime(d.credited_at) },
];

/** One account: its bank details (every one copyable while ACTIVE) and the bank deposits it received. */
export function VirtualAccountDetail(props: { merchantId: string; accountId: string }) {
  const [loaded, reload] = useLoad(async () => {
    const account = await virtualAccountApi.get(props.merchantId, props.accountId);
    const [customer, deposits] = await Promise.all([
      merchantApi.customer(props.merchantId, account.customer_id),
      virtualAccountApi.deposits(props.merchantId, props.accountId),
    ]);
    return { account, customer, deposits };
  }, `${props.merchantId}:${props.accountId}`);
  const base = `/merchants/${props.merchantId}`;
  const backLink = <InAppLink to={`${base}/virtual-accounts`}>← Virtual accounts</InAppLink>;
  return (
    <DetailStates what="Virtual account" backLink={backLink} loaded={loaded} retry={reload}>
      {({ account, customer, deposits }) => {
        const instructions = Object.entries(account.deposit_instructions).map(([field, value]): [string, string] => [
          field.replace(/_/g, " ").replace(/^bank /, ""),
          Array.isArray(value) ? value.join(", ") : String(value),
        ]);
        return (
          <section aria-labelledby="virtual-account-title">
            {backLink}
            <h1 id="virtual-account-title">
              {account.deposit_instructions.bank_name} {accountNumber(account)}
            </h1>
            <DescriptionList
              card
              items={[
                {
                  term: "Status",
                  value: (
                    <>
                      <StatusText status={account.status} />
                      {account.failure_reason && <> — {account.failure_reason}</>}
                    </>
                  ),
                },
                {
                  term: "Customer",
                  value: <InAppLink to={`${base}/customers/${customer.id}`}>{customerName(customer)}</InAppLink>,
                },
                { term: "Currency", value: account.currency },
                { term: "Opened", value: formatDateTime(account.created_at) },
                { term: "Id", value: <CopyableValue value={account.id} what="virtual account id" /> },
              ]}
            />
            <h2>Deposit instructions</h2>
            {account.status !== "ACTIVE" && (
              <p class="muted">The full bank details are shown once the account is ACTIVE.</p>
            )}
            <dl class="details card">
              {instructions.map(([field, value]) => (
                <Fragment key={field}>
                  <dt>{field}</dt>
                  <dd>
                    <span class="mono">{value}</span>
                    {account.status === "ACTIVE" && value && <CopyButton value={value} what={field} />}
                  </dd>
                </Fragment>
              ))}
            </dl>
            <h2>Bank deposits</h2>
            <Table
              caption={`${deposits.total} bank deposits, newest first`}
              columns={depositColumns}
              rows={deposits.items}
              empty={{
                title: "No bank deposits yet.",
                children: "Transfers the bank receives on this account appear here.",
              }}
            />
          </section>
        );
      }}
    </DetailStates>
  );
}
