import { useState } from "preact/hooks";
import { createdColumn } from "../components/columns.tsx";
import { DayRangeFields, SelectField, TextField } from "../components/Fields.tsx";
import { FilterForm } from "../components/FilterForm.tsx";
import { dayRange } from "../components/format.ts";
import { LoadFailed } from "../components/LoadFailed.tsx";
import { Loading } from "../components/Loading.tsx";
import { PagedTable } from "../components/PagedTable.tsx";
import type { Column } from "../components/Table.tsx";
import { useFilteredList } from "../components/useFilteredList.ts";
import { useLoad } from "../components/useLoad.ts";
import "../components/webhook-tools.css";
import { InAppLink } from "../components/InAppLink.tsx";
import { type EventQuery, type LoggedEvent, recordsApi } from "../records-api.ts";
import { webhookApi } from "../webhook-api.ts";

/** The merchant page that shows each kind of object an event is about (the others have none). */
const OBJECT_SECTIONS: Partial<Record<LoggedEvent["object_type"], string>> = {
  customer: "customers",
  wallet: "wallets",
  deposit: "deposits",
  transfer: "transfers",
  payment_request: "payment-requests",
  virtual_account: "virtual-accounts",
};

function EventObject(props: { merchantId: string; event: LoggedEvent }) {
  const { event } = props;
  const section = OBJECT_SECTIONS[event.object_type];
  const name = `${event.object_type.replace(/_/g, " ")} ${event.object_id.slice(0, 8)}`;
  if (!section) return <span class="mono">{name}</span>;
  return (
    <InAppLink class="mono" to={`/merchants/${props.merchantId}/${section}/${event.object_id}`}>
      {name}
    </InAppLink>
  );
}

/** The event as its webhook delivers it, folded (a native disclosure: keyboard and screen readers know it). */
function EventData(props: { event: LoggedEvent }) {
  return (
    <details>
      <summary>
        Data<span class="visually-hidden"> of {props.event.type}</span>
      </summary>
      <pre class="payload">{JSON.stringify(props.event, null, 2)}</pre>
    </details>
  );
}

const columns = (merchantId: string): ReadonlyArray<Column<LoggedEvent>> => [
  createdColumn(),
  { header: "Type", cell: (event) => <code>{event.type}</code> },
  { header: "Object", cell: (event) => <EventObject merchantId={merchantId} event={event} /> },
  { header: "Version", cell: (event) => event.object_version, class: "mono" },
  { header: "Data", cell: (event) => <EventData event={event} /> },
];

const DELIVERY = [
  ["", "Any"],
  ["true", "A delivery failed"],
  ["false", "No failed delivery"],
] as const;

/**
 * The merchant's events log (GET /v1/events, kept at least 30 days), newest first, with the API's
 * own filters: type, object id, created days and whether a webhook delivery failed; each event's
 * data as its webhook carries it, and a link to its object's page.
 */
export function Events(props: { merchantId: string }) {
  const [type, setType] = useState("");
  const [objectId, setObjectId] = useState("");
  const [delivery, setDelivery] = useState<(typeof DELIVERY)[number][0]>("");
  const [from, setFrom] = useState("");
  const [to, setTo] = useState("");
  const [types] = useLoad(() => webhookApi.eventTypes(props.merchantId), props.merchantId);
  const query: EventQuery = { type, object_id: objectId.trim(), delivery_failed: delivery, ...dayRange(from, to) };
  const { list, reload, page, setPage, filter } = useFilteredList(recordsApi.events, props.merchantId, query);
  if (list.state === "error" && list.error.status === 404) return <LoadFailed error={list.error} retry={reload} />;
  const filtered = Boolean(type || objectId.trim() || delivery || from || to);
  return (
    <section aria-labelledby="events-title">
      <h1 id="events-title">Events</h1>
      <FilterForm label="Filter events">
        <SelectField
          id="event-type"
          label="Type"
          value={type}
          empty="All"
          options={types.state === "ready" ? types.value.items : []}
          onChange={filter(setType)}
        />
        <div class="field">
          <label for="event-delivery">Webhook delivery</label>
          <select
            id="event-delivery"
            value={delivery}
            onChange={(e) => filter(setDelivery)(e.currentTarget.value as typeof delivery)}
          >
            {DELIVERY.map(([value, label]) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </select>
        </div>
        <TextField id="event-object" label="Object id" mono optional value={objectId} onInput={filter(setObjectId)} />
        <DayRangeFields id="event" from={from} to={to} onFrom={filter(setFrom)} onTo={filter(setTo)} />
      </FilterForm>
      <Loading merchantPage loaded={list} what="events" retry={reload}>
        {(events) => (
          <PagedTable
            list={events}
            what="events"
            one="Event"
            page={page}
            onPage={setPage}
            columns={columns(props.merchantId)}
            idAttribute="data-event"
            filtered={filtered}
            empty={{
              title: "No events yet.",
              children: "Every change of a customer, wallet, deposit or transfer is one.",
            }}
          />
        )}
      </Loading>
    </section>
  );
}
