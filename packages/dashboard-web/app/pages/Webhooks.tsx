import { useState } from "preact/hooks";
import type { User } from "../api.ts";
import { DisclosureButton } from "../components/DisclosureButton.tsx";
import { DeliveryDetails, EditEndpoint, EndpointDangerZone, EndpointHealthLine } from "../components/EndpointTools.tsx";
import { EventTypePicker } from "../components/EventTypePicker.tsx";
import { TextField } from "../components/Fields.tsx";
import { errorText, formatDateTime } from "../components/format.ts";
import { LoadFailed } from "../components/LoadFailed.tsx";
import { Empty, Skeleton } from "../components/Loading.tsx";
import { Notice } from "../components/Notice.tsx";
import { ShownOnce } from "../components/ShownOnce.tsx";
import { type Column, Table } from "../components/Table.tsx";
import { useAction } from "../components/useAction.ts";
import { useLoad } from "../components/useLoad.ts";
import { canWriteWebhooks, type DeliveryAttempt, merchantApi, type WebhookEndpoint } from "../merchant-api.ts";
import { type EndpointHealth, webhookApi } from "../webhook-api.ts";

const deliveryColumns = (merchantId: string): ReadonlyArray<Column<DeliveryAttempt>> => [
  { header: "Event", cell: (attempt) => attempt.event_type },
  { header: "Attempt", cell: (attempt) => attempt.attempt },
  {
    header: "Answer",
    cell: (attempt) => (
      <>
        <span class={`status ${attempt.succeeded ? "succeeded" : "failed"}`}>{attempt.status_code ?? "no answer"}</span>{" "}
        {attempt.error && <span class="muted">{attempt.error}</span>} ({attempt.latency_ms} ms)
      </>
    ),
  },
  { header: "When", cell: (attempt) => formatDateTime(attempt.attempted_at) },
  { header: "Details", cell: (attempt) => <DeliveryDetails merchantId={merchantId} attempt={attempt} /> },
];

/** An endpoint's delivery attempts, newest first; a writer can send an attempt's event again. */
function Deliveries(props: { merchantId: string; endpoint: WebhookEndpoint; canWrite: boolean }) {
  const [attempts, reload] = useLoad(
    () => merchantApi.deliveries(props.merchantId, props.endpoint.id),
    props.endpoint.id,
  );
  const [note, setNote] = useState<{ kind: "error" | "success"; text: string } | undefined>();
  const redeliver = async (eventId: string) => {
    try {
      await merchantApi.redeliver(props.merchantId, eventId, props.endpoint.id);
      setNote({ kind: "success", text: "Redelivery queued." });
      reload();
    } catch (e) {
      setNote({ kind: "error", text: errorText(e) });
    }
  };
  if (attempts.state === "loading") return <Skeleton what="deliveries" rows={2} />;
  if (attempts.state === "error") return <LoadFailed error={attempts.error} retry={reload} />;
  return (
    <div class="deliveries">
      {note && <Notice kind={note.kind}>{note.text}</Notice>}
      {attempts.value.items.length === 0 ? (
        <p class="muted">No delivery attempts yet.</p>
      ) : (
        <Table
          caption={`Delivery attempts to ${props.endpoint.url}`}
          columns={deliveryColumns(props.merchantId)}
          rows={attempts.value.items}
          {...(props.canWrite
            ? {
                actions: (attempt: DeliveryAttempt) =>
                  attempt.event_id && (
                    <button
                      type="button"
                      class="button secondary"
                      onClick={() => attempt.event_id && redeliver(attempt.event_id)}
                    >
                      Redeliver<span class="visually-hidden"> {attempt.event_type}</span>
                    </button>
                  ),
              }
            : {})}
        />
      )}
    </div>
  );
}

function EndpointCard(props: {
  merchantId: string;
  endpoint: WebhookEndpoint;
  health: EndpointHealth | undefined;
  canWrite: boolean;
  onChanged: () => void;
}) {
  const { endpoint } = props;
  const [open, setOpen] = useState(false);
  const [editing, setEditing] = useState(false);
  const [note, setNote] = useState<{ kind: "error" | "success"; text: string } | undefined>();
  const act = async (action: () => Promise<unknown>, done: string) => {
    try {
      await action();
      setNote({ kind: "success", text: done });
      props.onChanged();
    } catch (e) {
      setNote({ kind: "error", text: errorText(e) });
    }
  };
  const regionId = `deliveries-${endpoint.id}`;
  return (
    <li class="card endpoint">
      <div class="page-head">
        <h2 class="mono break">{endpoint.url}</h2>
        <span class={`status ${endpoint.status}`}>
          {endpoint.status}
          {endpoint.disabled_reason ? ` (${endpoint.disabled_reason})` : ""}
        </span>
      </div>
      {endpoint.description && <p>{endpoint.description}</p>}
      <p class="muted">Events: {endpoint.enabled_events.join(", ")}</p>
      <EndpointHealthLine health={props.health} />
      {note && <Notice kind={note.kind}>{note.text}</Notice>}
      <div class="button-row">
        <DisclosureButton open={open} controls={regionId} onClick={() => setOpen(!open)}>
          {open ? "Hide deliveries" : "Deliveries"}
        </DisclosureButton>
        {props.canWrite && endpoint.status === "enabled" && (
          <button
            type="button"
            class="button secondary"
            onClick={() => act(() => merchantApi.testEndpoint(props.merchantId, endpoint.id), "Test event queued.")}
          >
            Send test event
          </button>
        )}
        {props.canWrite && (
          <button
            type="button"
            class="button secondary"
            onClick={() => {
              const status = endpoint.status === "enabled" ? "disabled" : "enabled";
              return act(
                () => merchantApi.updateEndpoint(props.merchantId, endpoint.id, { status }),
                `Endpoint ${status}.`,
              );
            }}
          >
            {endpoint.status === "enabled" ? "Disable" : "Enable"}
          </button>
        )}
        {props.canWrite && !editing && (
          <button type="button" class="button secondary" onClick={() => setEditing(true)}>
            Edit<span class="visually-hidden"> {endpoint.url}</span>
          </button>
        )}
      </div>
      {editing && (
        <EditEndpoint
          merchantId={props.merchantId}
          endpoint={endpoint}
          onDone={(saved) => {
            setEditing(false);
            if (saved) {
              setNote({ kind: "success", text: "Endpoint saved." });
              props.onChanged();
            }
          }}
        />
      )}
      {props.canWrite && (
        <EndpointDangerZone merchantId={props.merchantId} endpoint={endpoint} onDeleted={props.onChanged} />
      )}
      {open && (
        <div id={regionId}>
          <Deliveries merchantId={props.merchantId} endpoint={endpoint} canWrite={props.canWrite} />
        </div>
      )}
    </li>
  );
}

/**
 * Webhook endpoints: list with their health, create (event types picked, secret shown once), edit,
 * test, disable, rotate the secret, delete, deliveries (payload and answer) and redelivery.
 */
export function Webhooks(props: { user: User; merchantId: string }) {
  const [endpoints, reload] = useLoad(() => merchantApi.endpoints(props.merchantId), props.merchantId);
  const [url, setUrl] = useState("");
  const [events, setEvents] = useState<string[]>(["*"]);
  const [health, reloadHealth] = useLoad(() => webhookApi.health(props.merchantId), props.merchantId);
  const healthOf = (id: string) =>
    health.state === "ready" ? health.value.items.find((h) => h.endpoint_id === id) : undefined;
  const reloadAll = () => {
    reload();
    reloadHealth();
  };
  const [secret, setSecret] = useState<string | undefined>();
  const { busy, error, run } = useAction();
  const canWrite = canWriteWebhooks(props.user.role);
  const create = async (event: Event) => {
    event.preventDefault();
    const body = { url: url.trim(), enabled_events: events };
    const created = await run(() => merchantApi.createEndpoint(props.merchantId, body));
    if (!created) return;
    setSecret(created.secret);
    setUrl("");
    reloadAll();
  };
  if (endpoints.state === "error" && endpoints.error.status === 404) {
    return <LoadFailed error={endpoints.error} retry={reload} />;
  }
  return (
    <section aria-labelledby="webhooks-title">
      <h1 id="webhooks-title">Webhooks</h1>
      {canWrite ? (
        <form class="card inline-form" onSubmit={create} aria-labelledby="new-endpoint-title">
          <h2 id="new-endpoint-title" class="visually-hidden">
            Add an endpoint
          </h2>
          <TextField id="endpoint-url" label="Endpoint URL" type="url" grow value={url} onInput={setUrl} />
          <EventTypePicker
            id="endpoint-events"
            load={() => webhookApi.eventTypes(props.merchantId)}
            value={events}
            onChange={setEvents}
          />
          <button type="submit" class="button primary" disabled={busy || events.length === 0}>
            Add endpoint
          </button>
        </form>
      ) : (
        <p class="muted role-note">
          Your role ({props.user.role}) can view webhook endpoints but not add, change or redeliver.
        </p>
      )}
      {error && <Notice kind="error">{error}</Notice>}
      {secret && (
        <ShownOnce
          id="endpoint-secret"
          title="Signing secret"
          label="New signing secret"
          value={secret}
          onDismiss={() => setSecret(undefined)}
        >
          Store it now: <strong>it will not be shown again.</strong>
        </ShownOnce>
      )}
      {endpoints.state === "loading" && <Skeleton what="endpoints" />}
      {endpoints.state === "error" && <LoadFailed error={endpoints.error} retry={reload} />}
      {endpoints.state === "ready" && endpoints.value.items.length === 0 && (
        <Empty title="No webhook endpoints yet.">
          An endpoint receives a signed POST for each event of this merchant.
        </Empty>
      )}
      {endpoints.state === "ready" && endpoints.value.items.length > 0 && (
        <ul class="endpoints">
          {endpoints.value.items.map((endpoint) => (
            <EndpointCard
              key={endpoint.id}
              merchantId={props.merchantId}
              endpoint={endpoint}
              health={healthOf(endpoint.id)}
              canWrite={canWrite}
              onChanged={reloadAll}
            />
          ))}
        </ul>
      )}
    </section>
  );
}
