import { useState } from "preact/hooks";
import "./webhook-tools.css";
import type { DeliveryAttempt, WebhookEndpoint } from "../merchant-api.ts";
import { type EndpointHealth, webhookApi } from "../webhook-api.ts";
import { ConfirmAction } from "./ConfirmAction.tsx";
import { DisclosureButton } from "./DisclosureButton.tsx";
import { EventTypePicker } from "./EventTypePicker.tsx";
import { TextField } from "./Fields.tsx";
import { formatDateTime } from "./format.ts";
import { Notice } from "./Notice.tsx";
import { ShownOnce } from "./ShownOnce.tsx";
import { useAction } from "./useAction.ts";

/** Success rate, last error and next retry of an endpoint, in one line; `failing` when most attempts fail. */
export function EndpointHealthLine(props: { health: EndpointHealth | undefined }) {
  const h = props.health;
  if (!h) return null;
  const rate = h.attempts === 0 ? undefined : Math.round((100 * h.succeeded) / h.attempts);
  return (
    <dl class={`health${rate !== undefined && rate < 50 ? " failing" : ""}`} aria-label="Endpoint health">
      <div>
        <dt>Success rate ({h.days} days)</dt>
        <dd data-health="rate">
          {rate === undefined ? "no attempts" : `${rate}% (${h.succeeded} of ${h.attempts} attempts)`}
        </dd>
      </div>
      <div>
        <dt>Last error</dt>
        <dd data-health="last-error">
          {h.last_error
            ? `${h.last_error.status_code ?? "no answer"}${h.last_error.error ? `: ${h.last_error.error}` : ""}, ${formatDateTime(h.last_error.at)}`
            : "none"}
        </dd>
      </div>
      <div>
        <dt>Next retry</dt>
        <dd data-health="next-retry">
          {h.next_retry_at ? formatDateTime(h.next_retry_at) : "none due"}
          {h.pending > 0 && ` (${h.pending} waiting)`}
        </dd>
      </div>
    </dl>
  );
}

/** Change the endpoint's URL, description and event types. */
export function EditEndpoint(props: {
  merchantId: string;
  endpoint: WebhookEndpoint;
  onDone: (saved: boolean) => void;
}) {
  const { endpoint } = props;
  const [url, setUrl] = useState(endpoint.url);
  const [description, setDescription] = useState(endpoint.description ?? "");
  const [events, setEvents] = useState<string[]>(endpoint.enabled_events);
  const { busy, error, run } = useAction();
  const save = async (event: Event) => {
    event.preventDefault();
    const saved = await run(() =>
      webhookApi.update(props.merchantId, endpoint.id, {
        url: url.trim(),
        description: description.trim() || null,
        enabled_events: events,
      }),
    );
    if (saved) props.onDone(true);
  };
  const id = `edit-${endpoint.id}`;
  return (
    <form class="edit-endpoint" onSubmit={save} aria-label={`Edit endpoint ${endpoint.url}`}>
      <TextField id={`${id}-url`} label="Endpoint URL" type="url" value={url} onInput={setUrl} />
      <div class="field">
        <label for={`${id}-description`}>Description (optional)</label>
        <input id={`${id}-description`} value={description} onInput={(e) => setDescription(e.currentTarget.value)} />
      </div>
      <EventTypePicker
        id={`${id}-events`}
        load={() => webhookApi.eventTypes(props.merchantId)}
        value={events}
        onChange={setEvents}
      />
      {error && <Notice kind="error">{error}</Notice>}
      <div class="button-row">
        <button type="submit" class="button primary" disabled={busy || events.length === 0}>
          Save changes
        </button>
        <button type="button" class="button secondary" onClick={() => props.onDone(false)}>
          Cancel
        </button>
      </div>
    </form>
  );
}

/** Rotate the signing secret (the new one shown once; the old one signs too for 24 h) and delete. */
export function EndpointDangerZone(props: { merchantId: string; endpoint: WebhookEndpoint; onDeleted: () => void }) {
  const { endpoint } = props;
  const [rotated, setRotated] = useState<{ secret: string; until: string } | undefined>();
  const { error, run } = useAction();
  return (
    <div class="danger-zone">
      {error && <Notice kind="error">{error}</Notice>}
      {rotated && (
        <ShownOnce
          id={`rotated-${endpoint.id}`}
          title="New signing secret"
          label="New signing secret"
          value={rotated.secret}
          onDismiss={() => setRotated(undefined)}
        >
          Store it now: <strong>it will not be shown again.</strong> The previous secret keeps signing until{" "}
          {formatDateTime(rotated.until)}.
        </ShownOnce>
      )}
      <div class="button-row">
        <ConfirmAction
          legend="Rotate the signing secret"
          warning="A new secret replaces this one; deliveries carry both signatures for 24 hours."
          confirm="Rotate secret"
          run={async () => {
            const answer = await run(() => webhookApi.rotate(props.merchantId, endpoint.id));
            if (answer) setRotated({ secret: answer.secret, until: answer.previous_secret_expires_at });
            return answer !== undefined;
          }}
        >
          Rotate secret…<span class="visually-hidden"> of {endpoint.url}</span>
        </ConfirmAction>
        <ConfirmAction
          legend="Delete the endpoint"
          warning="Deletes the endpoint, its secrets and its delivery history; nothing more is sent to it."
          confirm="Delete endpoint"
          run={async () => {
            const deleted = await run(() => webhookApi.remove(props.merchantId, endpoint.id));
            if (deleted) props.onDeleted();
            return deleted !== undefined;
          }}
        >
          Delete…<span class="visually-hidden"> {endpoint.url}</span>
        </ConfirmAction>
      </div>
    </div>
  );
}

/** One attempt's payload (its event, as sent) and the receiver's answer, shown on request. */
export function DeliveryDetails(props: { merchantId: string; attempt: DeliveryAttempt }) {
  const { attempt } = props;
  const [payload, setPayload] = useState<string | undefined>();
  const [open, setOpen] = useState(false);
  const { busy, error, run } = useAction();
  const id = `attempt-${attempt.id}`;
  const toggle = async () => {
    if (open) return setOpen(false);
    setOpen(true);
    if (payload === undefined && attempt.event_id) {
      const eventId = attempt.event_id;
      const event = await run(() => webhookApi.event(props.merchantId, eventId));
      if (event) setPayload(JSON.stringify(event, null, 2));
    }
  };
  return (
    <div class="delivery-details">
      <DisclosureButton open={open} controls={id} small disabled={busy} onClick={toggle}>
        {open ? "Hide" : "Payload and answer"}
        <span class="visually-hidden">
          {" "}
          of {attempt.event_type} attempt {attempt.attempt}
        </span>
      </DisclosureButton>
      {open && (
        <div id={id}>
          {error && <Notice kind="error">{error}</Notice>}
          <h4>Payload</h4>
          {attempt.event_id ? (
            <pre class="payload">{payload ?? "…"}</pre>
          ) : (
            <p class="muted">A test event: not kept in the events log.</p>
          )}
          <h4>Answer</h4>
          <pre class="payload">{attempt.response_body ?? "(no body)"}</pre>
        </div>
      )}
    </div>
  );
}
