import { useEffect, useRef, useState } from "preact/hooks";
import { ApiError, type ApiKey, api, type CreatedKey, canWriteKeys, type User } from "../api.ts";
import { EnvironmentBadge } from "../components/EnvironmentBadge.tsx";
import { LoadFailed } from "../components/LoadFailed.tsx";
import { Notice } from "../components/Notice.tsx";
import { useLoad } from "../components/useLoad.ts";

const dateFormat = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "short" });

/** The new key, shown once: the server keeps only its hash. */
function NewKey(props: { created: CreatedKey; onDismiss: () => void }) {
  const [copied, setCopied] = useState<"no" | "yes" | "failed">("no");
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), []);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(props.created.api_key);
      setCopied("yes");
    } catch {
      setCopied("failed");
    }
  };
  return (
    <section class="card secret" aria-labelledby="new-key-title">
      <h2 id="new-key-title" tabIndex={-1} ref={heading}>
        Your new API key
      </h2>
      <p>
        Copy it now and store it somewhere safe. <strong>It will not be shown again.</strong>
      </p>
      <div class="secret-row">
        <label for="new-key" class="visually-hidden">
          New API key
        </label>
        <input
          id="new-key"
          class="mono"
          readOnly
          value={props.created.api_key}
          onFocus={(e) => (e.target as HTMLInputElement).select()}
        />
        <button type="button" class="button primary" onClick={copy}>
          {copied === "yes" ? "Copied" : "Copy"}
        </button>
      </div>
      <p class="hint" role="status">
        {copied === "yes" && "Copied to the clipboard."}
        {copied === "failed" && "The browser refused the clipboard: select the key and copy it by hand."}
      </p>
      <button type="button" class="button secondary" onClick={props.onDismiss}>
        I have stored it
      </button>
    </section>
  );
}

function KeyRow(props: { apiKey: ApiKey; canWrite: boolean; onRevoke: (key: ApiKey) => Promise<void> }) {
  const [confirming, setConfirming] = useState(false);
  const [busy, setBusy] = useState(false);
  const key = props.apiKey;
  return (
    <tr class={key.revoked_at ? "revoked" : undefined}>
      <td data-label="Key">
        <code>{key.prefix}…</code>
      </td>
      <td data-label="Environment">
        <EnvironmentBadge environment={key.environment} />
      </td>
      <td data-label="Created">{dateFormat.format(new Date(key.created_at))}</td>
      <td data-label="Status">
        {key.revoked_at ? (
          <span class="status revoked">Revoked {dateFormat.format(new Date(key.revoked_at))}</span>
        ) : (
          <span class="status active">Active</span>
        )}
      </td>
      <td class="actions">
        {props.canWrite && !key.revoked_at && !confirming && (
          <button type="button" class="button danger-outline" onClick={() => setConfirming(true)}>
            Revoke<span class="visually-hidden"> {key.prefix}</span>
          </button>
        )}
        {confirming && (
          <fieldset class="confirm">
            <legend class="visually-hidden">Confirm revoking {key.prefix}</legend>
            <span>Requests with this key will fail at once.</span>
            <button
              type="button"
              class="button danger"
              disabled={busy}
              onClick={async () => {
                setBusy(true);
                await props.onRevoke(key);
                setBusy(false);
                setConfirming(false);
              }}
            >
              Revoke key
            </button>
            <button type="button" class="button secondary" onClick={() => setConfirming(false)}>
              Cancel
            </button>
          </fieldset>
        )}
      </td>
    </tr>
  );
}

export function ApiKeys(props: { user: User; merchantId: string }) {
  const [keys, reload] = useLoad(() => api.apiKeys(props.merchantId), props.merchantId);
  const [created, setCreated] = useState<CreatedKey | undefined>();
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  const canWrite = canWriteKeys(props.user.role);

  const create = async () => {
    setBusy(true);
    setError(undefined);
    try {
      setCreated(await api.createApiKey(props.merchantId));
      reload();
    } catch (e) {
      setError(e instanceof ApiError ? e.message : String(e));
    } finally {
      setBusy(false);
    }
  };
  const revoke = async (key: ApiKey) => {
    setError(undefined);
    try {
      await api.revokeApiKey(props.merchantId, key.id);
      reload();
    } catch (e) {
      setError(e instanceof ApiError ? e.message : String(e));
    }
  };

  if (keys.state === "error" && keys.error.status === 404) return <LoadFailed error={keys.error} retry={reload} />;

  return (
    <section aria-labelledby="keys-title">
      <div class="page-head">
        <h1 id="keys-title">API keys</h1>
        {canWrite ? (
          <button type="button" class="button primary" onClick={create} disabled={busy}>
            {busy ? "Creating…" : "Create API key"}
          </button>
        ) : (
          <p class="muted role-note">Your role ({props.user.role}) can view keys but not create or revoke them.</p>
        )}
      </div>
      <p class="muted">
        Send a key in the <code>X-Service-API-Key</code> header of every <code>/v1</code> request. Keys are stored only
        as a hash: a lost key cannot be recovered, only replaced.
      </p>
      {error && <Notice kind="error">{error}</Notice>}
      {created && <NewKey created={created} onDismiss={() => setCreated(undefined)} />}
      {keys.state === "loading" && <p class="muted">Loading keys…</p>}
      {keys.state === "error" && <LoadFailed error={keys.error} retry={reload} />}
      {keys.state === "ready" && keys.value.items.length === 0 && (
        <div class="empty">
          <p>No API keys yet.</p>
          {canWrite && <p class="muted">Create one to start calling the API.</p>}
        </div>
      )}
      {keys.state === "ready" && keys.value.items.length > 0 && (
        <table class="table">
          <caption class="visually-hidden">API keys of this merchant</caption>
          <thead>
            <tr>
              <th scope="col">Key</th>
              <th scope="col">Environment</th>
              <th scope="col">Created</th>
              <th scope="col">Status</th>
              <th scope="col">
                <span class="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {keys.value.items.map((key) => (
              <KeyRow key={key.id} apiKey={key} canWrite={canWrite} onRevoke={revoke} />
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
