import { useState } from "preact/hooks";
import { type ApiKey, api, type CreatedKey, canWriteKeys, type User } from "../api.ts";
import { ActiveStatus } from "../components/ActiveStatus.tsx";
import { ConfirmAction } from "../components/ConfirmAction.tsx";
import { createdColumn } from "../components/columns.tsx";
import { EnvironmentBadge } from "../components/EnvironmentBadge.tsx";
import { errorText } from "../components/format.ts";
import { LoadFailed } from "../components/LoadFailed.tsx";
import { Skeleton } from "../components/Loading.tsx";
import { Notice } from "../components/Notice.tsx";
import { ShownOnce } from "../components/ShownOnce.tsx";
import { type Column, Table } from "../components/Table.tsx";
import { useAction } from "../components/useAction.ts";
import { useLoad } from "../components/useLoad.ts";

const COLUMNS: ReadonlyArray<Column<ApiKey>> = [
  { header: "Key", cell: (key) => <code>{key.prefix}…</code> },
  { header: "Environment", cell: (key) => <EnvironmentBadge environment={key.environment} /> },
  createdColumn(),
  { header: "Status", cell: (key) => <ActiveStatus endedAt={key.revoked_at} ended="Revoked" /> },
];

/** Revoke, asked twice: a revoked key fails at once. */
function RevokeKey(props: { apiKey: ApiKey; onRevoke: (key: ApiKey) => Promise<boolean> }) {
  const key = props.apiKey;
  if (key.revoked_at) return null;
  return (
    <ConfirmAction
      legend={`Confirm revoking ${key.prefix}`}
      warning="Requests with this key will fail at once."
      confirm="Revoke key"
      run={() => props.onRevoke(key)}
    >
      Revoke<span class="visually-hidden"> {key.prefix}</span>
    </ConfirmAction>
  );
}

export function ApiKeys(props: { user: User; merchantId: string }) {
  const [keys, reload] = useLoad(() => api.apiKeys(props.merchantId), props.merchantId);
  const [created, setCreated] = useState<CreatedKey | undefined>();
  const [error, setError] = useState<string | undefined>();
  const { busy, error: createError, run } = useAction();
  const canWrite = canWriteKeys(props.user.role);

  const create = async () => {
    const key = await run(() => api.createApiKey(props.merchantId));
    if (key) {
      setCreated(key);
      reload();
    }
  };
  const revoke = async (key: ApiKey) => {
    setError(undefined);
    try {
      await api.revokeApiKey(props.merchantId, key.id);
      reload();
      return true;
    } catch (e) {
      setError(errorText(e));
      return false;
    }
  };

  if (keys.state === "error" && keys.error.status === 404) return <LoadFailed error={keys.error} retry={reload} />;

  return (
    <section aria-labelledby="keys-title">
      <div class="page-head">
        <h1 id="keys-title">API keys</h1>
        {canWrite ? (
          <button type="button" class="button primary" onClick={create} disabled={busy}>
            Create API key
          </button>
        ) : (
          <p class="muted role-note">Your role ({props.user.role}) can view keys but not create or revoke them.</p>
        )}
      </div>
      <p class="muted">
        Send a key in the <code>X-Service-API-Key</code> header of every <code>/v1</code> request. Keys are stored only
        as a hash: a lost key cannot be recovered, only replaced.
      </p>
      {(error ?? createError) && <Notice kind="error">{error ?? createError}</Notice>}
      {created && (
        <ShownOnce
          id="new-key"
          title="Your new API key"
          label="New API key"
          value={created.api_key}
          onDismiss={() => setCreated(undefined)}
        >
          Copy it now and store it somewhere safe. <strong>It will not be shown again.</strong>
        </ShownOnce>
      )}
      {keys.state === "loading" && <Skeleton what="keys" />}
      {keys.state === "error" && <LoadFailed error={keys.error} retry={reload} />}
      {keys.state === "ready" && (
        <Table
          caption="API keys of this merchant"
          columns={COLUMNS}
          rows={keys.value.items}
          rowAttributes={(key) => ({ class: key.revoked_at ? "revoked" : undefined })}
          empty={{ title: "No API keys yet.", children: canWrite ? "Create one to start calling the API." : undefined }}
          {...(canWrite ? { actions: (key: ApiKey) => <RevokeKey apiKey={key} onRevoke={revoke} /> } : {})}
        />
      )}
    </section>
  );
}
