import { Amount } from "../components/Amount.tsx";
import { CopyableValue } from "../components/CopyableValue.tsx";
import { DescriptionList } from "../components/DescriptionList.tsx";
import { DetailStates } from "../components/DetailStates.tsx";
import { formatDateTime } from "../components/format.ts";
import { InAppLink } from "../components/InAppLink.tsx";
import { Notice } from "../components/Notice.tsx";
import { StateBadge } from "../components/StateBadge.tsx";
import { transferState } from "../components/states.ts";
import { useLoad } from "../components/useLoad.ts";
import { merchantApi, type ResourceEvent, type Transfer } from "../merchant-api.ts";
import { href, linkHandler } from "../router.ts";
import { awaitsCustomerFunding, Destination, FundingInstructions, MoneyOn, Spread } from "./Transfers.tsx";

/** What each transfer event says in the timeline. */
const EVENT_TEXT: Readonly<Record<string, string>> = {
  "transfer.created": "Created from its quote",
  "transfer.funding_received": "Funding received",
  "transfer.funded": "Funded",
  "transfer.canceled": "Canceled",
  "transfer.expired": "Expired before it was funded",
  "transfer.late_funding": "Funding arrived after it ended",
  "transfer.funding_reversed": "Funding reversed by the chain",
  "transfer.processing": "Payout sent",
  "transfer.completed": "Completed: the payee has it",
  "transfer.failed": "Failed",
  "transfer.refunded": "Refunded",
};

/** How the transfer is paid for, in words. */
function fundingText(transfer: Transfer): string {
  if (transfer.funding_mode === "BALANCE") return "From the merchant's available balance (held at creation)";
  const method = transfer.source.method === "BANK_TRANSFER" ? "by bank transfer" : `in ${transfer.source.asset}`;
  return `The customer pays ${method}, just in time`;
}

function Timeline(props: { events: ResourceEvent[] }) {
  if (props.events.length === 0) return <p class="muted">No events yet.</p>;
  return (
    <ol class="timeline" aria-label="What happened to this transfer">
      {props.events.map((event) => (
        <li key={event.id}>
          <time dateTime={event.created_at}>{formatDateTime(event.created_at)}</time>{" "}
          {EVENT_TEXT[event.type] ?? event.type}
          {(event.type === "transfer.failed" || event.type === "transfer.refunded") &&
            "failure_reason" in event.data &&
            event.data.failure_reason && <>: {event.data.failure_reason}</>}
        </li>
      ))}
    </ol>
  );
}

/**
 * One transfer: its state in words, what is paid, the fee, the spread, what the payee receives and
 * where, the customer, why it failed, its events; its funding instructions only while a customer
 * still has to pay it (never on a balance-funded, completed or canceled one).
 */
export function TransferDetail(props: { merchantId: string; transferId: string }) {
  const [loaded, reload] = useLoad(async () => {
    const [transfer, spreads, events] = await Promise.all([
      merchantApi.transfer(props.merchantId, props.transferId),
      merchantApi.spreads(props.merchantId, [props.transferId]),
      merchantApi.eventsOf(props.merchantId, props.transferId),
    ]);
    const funding = awaitsCustomerFunding(transfer)
      ? await merchantApi.funding(props.merchantId, props.transferId)
      : undefined;
    return { transfer, spread: spreads.items[0], events: events.items.slice().reverse(), funding };
  }, `${props.merchantId}:${props.transferId}`);
  const back = `/merchants/${props.merchantId}/transfers`;
  const backLink = <InAppLink to={back}>← Transfers</InAppLink>;
  return (
    <DetailStates what="Transfer" backLink={backLink} loaded={loaded} retry={reload}>
      {({ transfer, spread, events, funding }) => {
        const customer = `/merchants/${props.merchantId}/customers/${transfer.customer_id}`;
        return (
          <section aria-labelledby="transfer-title">
            {backLink}
            <h1 id="transfer-title">
              Transfer of{" "}
              <Amount value={transfer.destination_amount.value} asset={transfer.destination_amount.currency} />
            </h1>
            {/* A REFUNDED transfer's reason says why its completed payout came back: not a failure to pay. */}
            {transfer.failure_reason && (
              <Notice kind={transfer.status === "REFUNDED" ? "info" : "error"}>
                {transfer.status === "REFUNDED" ? "Returned" : "Failed"}: {transfer.failure_reason}
              </Notice>
            )}
            <DescriptionList
              card
              items={[
                { term: "Status", value: <StateBadge state={transferState(transfer.status)} code={transfer.status} /> },
                { term: "Pays", value: <MoneyOn money={transfer.source_amount} /> },
                { term: "Fee", value: <Amount value={transfer.fee.value} asset={transfer.fee.currency} /> },
                { term: "Spread", value: <Spread spread={spread} /> },
                { term: "Receives", value: <MoneyOn money={transfer.destination_amount} /> },
                {
                  term: "Rate",
                  value: `1 ${transfer.rate.base_currency} = ${transfer.rate.value} ${transfer.rate.quote_currency}`,
                  valueClass: "mono",
                },
                { term: "To", value: <Destination transfer={transfer} full /> },
                { term: "Funding", value: fundingText(transfer) },
                {
                  term: "Customer",
                  value: (
                    <a href={href(customer)} onClick={linkHandler(customer)}>
                      Open the customer
                    </a>
                  ),
                },
                { term: "Created", value: formatDateTime(transfer.created_at) },
                transfer.status === "AWAITING_MERCHANT_FUNDING" && {
                  term: "Expires",
                  value: formatDateTime(transfer.expires_at),
                },
                { term: "Id", value: <CopyableValue value={transfer.id} what="transfer id" breakable /> },
              ]}
            />
            {funding && (
              <>
                <h2>Funding instructions</h2>
                <FundingInstructions funding={funding} />
              </>
            )}
            <h2>Events</h2>
            <Timeline events={events} />
          </section>
        );
      }}
    </DetailStates>
  );
}
