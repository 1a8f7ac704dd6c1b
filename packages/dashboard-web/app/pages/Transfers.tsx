import { useState } from "preact/hooks";
import type { User } from "../api.ts";
import { Amount } from "../components/Amount.tsx";
import { CopyableValue } from "../components/CopyableValue.tsx";
import { CopyButton } from "../components/CopyButton.tsx";
import { CustomerIdLink } from "../components/CustomerIdLink.tsx";
import { DayRangeFields } from "../components/Fields.tsx";
import { FilterForm } from "../components/FilterForm.tsx";
import { dayRange, formatDateTime } from "../components/format.ts";
import { InAppLink } from "../components/InAppLink.tsx";
import { LoadFailed } from "../components/LoadFailed.tsx";
import { Loading } from "../components/Loading.tsx";
import { NewPayout } from "../components/NewPayout.tsx";
import { PagedTable } from "../components/PagedTable.tsx";
import { StateBadge } from "../components/StateBadge.tsx";
import { transferState } from "../components/states.ts";
import type { Column } from "../components/Table.tsx";
import { TransferBeneficiary } from "../components/TransferBeneficiary.tsx";
import { useFilteredList } from "../components/useFilteredList.ts";
import {
  type Money,
  merchantApi,
  type Transfer,
  type TransferFunding,
  type TransferQuery,
  type TransferSpread,
} from "../merchant-api.ts";
import { canPayOut } from "../quote-api.ts";

const STATUSES: ReadonlyArray<Transfer["status"]> = [
  "AWAITING_MERCHANT_FUNDING",
  "FUNDED",
  "PROCESSING",
  "COMPLETED",
  "FAILED",
  "CANCELED",
  "EXPIRED",
  "REFUNDED",
];

/** A Money's rail as people say it: the merchant's balance, a bank rail, or the chain. */
function railOf(money: Money): string {
  return money.network === "LEDGER" ? "balance" : money.network;
}

export function MoneyOn(props: { money: Money }) {
  return (
    <>
      <Amount value={props.money.value} asset={props.money.currency} />{" "}
      <span class="muted">({railOf(props.money)})</span>
    </>
  );
}

/** The spread the rate kept, in the destination's currency, with its rate in basis points. */
export function Spread(props: { spread: Pick<TransferSpread, "spread" | "spread_bps"> | undefined }) {
  if (!props.spread) return <span class="muted">—</span>;
  return (
    <>
      <Amount value={props.spread.spread.value} asset={props.spread.spread.currency} />{" "}
      <span class="muted">({(props.spread.spread_bps / 100).toFixed(2)}%)</span>
    </>
  );
}

/** Where the payout goes: an address (to copy) or a masked bank account. */
export function Destination(props: { transfer: Transfer; full?: boolean }) {
  const { destination } = props.transfer;
  if (destination.bank_account) {
    const bank = destination.bank_account;
    return (
      <span>
        Bank {bank.account_number} <span class="muted">({bank.account_holder_name})</span>
      </span>
    );
  }
  if (!destination.address) return <span class="muted">—</span>;
  const shown =
    props.full || destination.address.length <= 16
      ? destination.address
      : `${destination.address.slice(0, 8)}…${destination.address.slice(-6)}`;
  return (
    <span>
      <span class="mono break" title={destination.address}>
        {shown}
      </span>{" "}
      <span class="muted">({destination.network})</span>{" "}
      <CopyButton value={destination.address} what="destination address" />
    </span>
  );
}

/** Funding instructions matter only while a customer still has to pay a just-in-time transfer. */
export function awaitsCustomerFunding(transfer: Transfer): boolean {
  return transfer.funding_mode === "TRANSFER_JIT" && transfer.status === "AWAITING_MERCHANT_FUNDING";
}

export function transferPath(merchantId: string, transferId: string): string {
  return `/merchants/${merchantId}/transfers/${transferId}`;
}

const columns = (
  merchantId: string,
  spreads: Map<string, TransferSpread>,
  user: User,
): ReadonlyArray<Column<Transfer>> => [
  {
    header: "Created",
    cell: (transfer) => (
      <InAppLink class="row-link" to={transferPath(merchantId, transfer.id)}>
        {formatDateTime(transfer.created_at)}
      </InAppLink>
    ),
  },
  {
    header: "Status",
    cell: (transfer) => (
      <>
        <StateBadge state={transferState(transfer.status)} code={transfer.status} />
        {transfer.failure_reason && <div class="hint danger-text">{transfer.failure_reason}</div>}
      </>
    ),
  },
  { header: "Pays", cell: (transfer) => <MoneyOn money={transfer.source_amount} /> },
  { header: "Receives", cell: (transfer) => <MoneyOn money={transfer.destination_amount} /> },
  { header: "Fee", cell: (transfer) => <Amount value={transfer.fee.value} asset={transfer.fee.currency} /> },
  { header: "Spread", cell: (transfer) => <Spread spread={spreads.get(transfer.id)} /> },
  { header: "To", cell: (transfer) => <Destination transfer={transfer} /> },
  {
    header: "Customer",
    cell: (transfer) => <CustomerIdLink merchantId={merchantId} customerId={transfer.customer_id} />,
  },
  // The travel rule's beneficiary: the platform's operator (admin) alone may read it, audited.
  ...(user.role === "admin"
    ? [{ header: "Beneficiary", cell: (transfer: Transfer) => <TransferBeneficiary transfer={transfer} /> }]
    : []),
];

/** A page of the merchant's transfers with the spread of each (what the rate kept), by transfer id. */
async function transfersWithSpreads(merchantId: string, page: number, query: TransferQuery) {
  const transfers = await merchantApi.transfers(merchantId, page, query);
  const ids = transfers.items.map((t) => t.id);
  const spreads = ids.length > 0 ? (await merchantApi.spreads(merchantId, ids)).items : [];
  return { transfers, spreads: new Map(spreads.map((s) => [s.transfer_id, s])) };
}

/**
 * The merchant's transfers, newest first, filtered by status and created day (GET /v1/transfers'
 * own filters): each with its state in words and colour, what is paid and received, the fee and
 * the spread (what the rate kept), where it goes, the customer and why it failed; a row opens the
 * transfer's page (its events, and its funding instructions while a customer still has to pay).
 */
export function Transfers(props: { merchantId: string; user: User }) {
  const [status, setStatus] = useState("");
  const [from, setFrom] = useState("");
  const [to, setTo] = useState("");
  const [paying, setPaying] = useState(false);
  const query: TransferQuery = { status, ...dayRange(from, to) };
  const { list, reload, page, setPage, filter } = useFilteredList(transfersWithSpreads, props.merchantId, query);
  if (list.state === "error" && list.error.status === 404) return <LoadFailed error={list.error} retry={reload} />;
  const filtered = Boolean(status || from || to);
  return (
    <section aria-labelledby="transfers-title">
      <div class="page-head">
        <h1 id="transfers-title">Transfers</h1>
        {canPayOut(props.user.role) && !paying && (
          <button type="button" class="button primary" onClick={() => setPaying(true)}>
            New payout
          </button>
        )}
      </div>
      {paying && <NewPayout merchantId={props.merchantId} onCreated={reload} onClose={() => setPaying(false)} />}
      <FilterForm label="Filter transfers">
        <div class="field">
          <label for="transfer-status">Status</label>
          <select id="transfer-status" value={status} onChange={(e) => filter(setStatus)(e.currentTarget.value)}>
            <option value="">All</option>
            {STATUSES.map((code) => (
              <option key={code} value={code}>
                {transferState(code).label}
              </option>
            ))}
          </select>
        </div>
        <DayRangeFields id="transfer" from={from} to={to} onFrom={filter(setFrom)} onTo={filter(setTo)} />
      </FilterForm>
      <Loading merchantPage loaded={list} what="transfers" retry={reload}>
        {({ transfers, spreads }) => (
          <PagedTable
            list={transfers}
            what="transfers"
            one="Transfer"
            page={page}
            onPage={setPage}
            columns={columns(props.merchantId, spreads, props.user)}
            idAttribute="data-transfer"
            filtered={filtered}
            empty={{
              title: "No transfers yet.",
              children: (
                <>
                  Transfers made from a quote (<code>POST /v1/transfers</code>) appear here.
                </>
              ),
            }}
          />
        )}
      </Loading>
    </section>
  );
}

/** The fields of a bank transfer's or a crypto deposit's instructions, as the API names them, each to copy. */
function detailRows(fields: Record<string, string> | null) {
  return Object.entries(fields ?? {}).map(([field, value]) => {
    const name = field.replace(/_/g, " ");
    return [
      <dt key={`${field}-t`}>{name}</dt>,
      <dd key={`${field}-d`}>
        {value ? <CopyableValue value={value} what={name} breakable /> : <span class="muted">none</span>}
      </dd>,
    ];
  });
}

/** A transfer's funding instructions, as GET /v1/transfers/{id}/funding answers them (bank details masked there). */
export function FundingInstructions(props: { funding: TransferFunding }) {
  const { intent } = props.funding;
  return (
    <dl class="details card">
      <dt>Pay</dt>
      <dd>
        <MoneyOn money={intent.required_amount} />
      </dd>
      <dt>Pay by</dt>
      <dd>{formatDateTime(intent.expires_at)}</dd>
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
  );
}
