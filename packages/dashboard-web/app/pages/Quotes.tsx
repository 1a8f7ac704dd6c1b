import { useState } from "preact/hooks";
import { Amount } from "../components/Amount.tsx";
import { CustomerIdLink } from "../components/CustomerIdLink.tsx";
import { SelectField } from "../components/Fields.tsx";
import { FilterForm } from "../components/FilterForm.tsx";
import { formatDateTime } from "../components/format.ts";
import { LoadFailed } from "../components/LoadFailed.tsx";
import { Skeleton } from "../components/Loading.tsx";
import { PagedTable } from "../components/PagedTable.tsx";
import { StateBadge } from "../components/StateBadge.tsx";
import { quoteState } from "../components/states.ts";
import type { Column } from "../components/Table.tsx";
import { useFilteredList } from "../components/useFilteredList.ts";
import { type Quote, type QuoteState, quoteApi } from "../quote-api.ts";
import { href, linkHandler } from "../router.ts";
import { MoneyOn, Spread } from "./Transfers.tsx";

const STATES: readonly QuoteState[] = ["open", "used", "expired"];
const STATE_NAMES: Record<QuoteState, string> = { open: "Open", used: "Used", expired: "Expired" };

/** Where a quote pays out: an address (shortened) on its network, or a masked bank account. */
function destinationText(quote: Quote): string {
  const { destination } = quote;
  if (destination.bank_account) return `Bank ${destination.bank_account.account_number}`;
  const address = destination.address ?? "";
  const shown = address.length <= 16 ? address : `${address.slice(0, 8)}…${address.slice(-6)}`;
  return `${shown} (${destination.network})`;
}

const columns = (merchantId: string): ReadonlyArray<Column<Quote>> => [
  { header: "Created", rowHeader: true, cell: (q) => formatDateTime(q.created_at) },
  {
    header: "State",
    cell: (q) => (
      <>
        <StateBadge state={quoteState(q.state)} code={q.state} />
        {q.state === "open" && <div class="hint">until {formatDateTime(q.expires_at)}</div>}
        {q.state === "expired" && <div class="hint">at {formatDateTime(q.expires_at)}</div>}
      </>
    ),
  },
  { header: "Pays", cell: (q) => <MoneyOn money={q.source_amount} /> },
  { header: "Receives", cell: (q) => <MoneyOn money={q.destination_amount} /> },
  { header: "Fee", cell: (q) => <Amount value={q.fee.value} asset={q.fee.currency} /> },
  { header: "Spread", cell: (q) => <Spread spread={q} /> },
  { header: "To", cell: (q) => <span class="mono break">{destinationText(q)}</span> },
  { header: "Customer", cell: (q) => <CustomerIdLink merchantId={merchantId} customerId={q.customer_id} /> },
];

/**
 * The merchant's quotes, newest first, filtered by state: what each pays and pays out, its fee and
 * spread, where it goes, whose it is, and until when it can be used (or that a transfer used it).
 */
export function Quotes(props: { merchantId: string }) {
  const [state, setState] = useState<QuoteState | "">("");
  const { list, reload, page, setPage, filter } = useFilteredList(quoteApi.list, props.merchantId, state);
  if (list.state === "error" && list.error.status === 404) return <LoadFailed error={list.error} retry={reload} />;
  return (
    <section aria-labelledby="quotes-title">
      <h1 id="quotes-title">Quotes</h1>
      <p class="muted">
        A quote fixes a transfer's rate, amounts and fee until it expires; a transfer uses it once. Start one from{" "}
        <a
          href={href(`/merchants/${props.merchantId}/transfers`)}
          onClick={linkHandler(`/merchants/${props.merchantId}/transfers`)}
        >
          Transfers → New payout
        </a>
        .
      </p>
      <FilterForm label="Filter quotes">
        <SelectField
          id="quote-state"
          label="State"
          value={state}
          options={STATES}
          labels={STATE_NAMES}
          empty="All"
          onChange={filter(setState)}
        />
      </FilterForm>
      {list.state === "error" && <LoadFailed error={list.error} retry={reload} />}
      {list.state === "loading" && <Skeleton what="quotes" />}
      {list.state === "ready" && (
        <PagedTable
          list={list.value}
          what="quotes"
          one="Quote"
          page={page}
          onPage={setPage}
          columns={columns(props.merchantId)}
          idAttribute="data-quote"
          filtered={Boolean(state)}
          empty={{
            title: "No quotes yet.",
            children: (
              <>
                Quotes made with <code>POST /v1/quotes</code> or a new payout appear here.
              </>
            ),
          }}
        />
      )}
    </section>
  );
}
