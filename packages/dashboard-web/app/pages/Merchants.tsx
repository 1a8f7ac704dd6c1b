import { useState } from "preact/hooks";
import type { Environment } from "../api.ts";
import { ActiveStatus } from "../components/ActiveStatus.tsx";
import { ConfirmAction } from "../components/ConfirmAction.tsx";
import { createdColumn } from "../components/columns.tsx";
import { EnvironmentBadge } from "../components/EnvironmentBadge.tsx";
import { SelectField, TextField } from "../components/Fields.tsx";
import { Loading } from "../components/Loading.tsx";
import { Notice } from "../components/Notice.tsx";
import { ShownOnce } from "../components/ShownOnce.tsx";
import { type Column, Table } from "../components/Table.tsx";
import { useAction } from "../components/useAction.ts";
import { useLoad } from "../components/useLoad.ts";
import { type CreatedMerchant, type ManagedMerchant, operatorApi } from "../operator-api.ts";
import { href, linkHandler } from "../router.ts";

const ENVIRONMENTS: readonly Environment[] = ["sandbox", "production"];
const ENVIRONMENT_NAMES: Record<Environment, string> = { sandbox: "Sandbox", production: "Live (production)" };

function CreateMerchantForm(props: { onCreated: (created: CreatedMerchant) => void }) {
  const [name, setName] = useState("");
  const [environment, setEnvironment] = useState<Environment>("sandbox");
  const [ownerEmail, setOwnerEmail] = useState("");
  const { busy, error, run } = useAction();
  const submit = async (event: Event) => {
    event.preventDefault();
    const created = await run(() => operatorApi.createMerchant(name.trim(), environment, ownerEmail.trim()));
    if (created) {
      props.onCreated(created);
      setName("");
      setOwnerEmail("");
    }
  };
  return (
    <form class="card form-card" onSubmit={submit} aria-labelledby="create-merchant-title">
      <h2 id="create-merchant-title">Create a merchant</h2>
      {error && <Notice kind="error">{error}</Notice>}
      <div class="form-row">
        <TextField id="merchant-name" label="Merchant name" maxLength={200} value={name} onInput={setName} />
        <SelectField
          id="merchant-environment"
          label="Environment"
          value={environment}
          options={ENVIRONMENTS}
          labels={ENVIRONMENT_NAMES}
          onChange={setEnvironment}
        />
        <div class="field">
          <label for="merchant-owner">Owner's email (optional)</label>
          <input
            id="merchant-owner"
            type="email"
            maxLength={320}
            aria-describedby="merchant-owner-hint"
            value={ownerEmail}
            onInput={(e) => setOwnerEmail((e.target as HTMLInputElement).value)}
          />
          <span class="hint" id="merchant-owner-hint">
            Invited as its first user: you get the link to pass on.
          </span>
        </div>
        <button type="submit" class="button primary" disabled={busy}>
          Create merchant
        </button>
      </div>
    </form>
  );
}

const COLUMNS: ReadonlyArray<Column<ManagedMerchant>> = [
  {
    header: "Merchant",
    rowHeader: true,
    cell: (m) => (
      <>
        <a href={href(`/merchants/${m.id}/overview`)} onClick={linkHandler(`/merchants/${m.id}/overview`)}>
          {m.name}
        </a>
        <br />
        <code class="muted id">{m.id}</code>
      </>
    ),
  },
  { header: "Environment", cell: (m) => <EnvironmentBadge environment={m.environment} /> },
  createdColumn(),
  { header: "Status", cell: (m) => <ActiveStatus endedAt={m.disabled_at} ended="Disabled" /> },
];

/** Disable (asked twice: its keys answer 401 at once) or enable one merchant. */
function MerchantActions(props: { merchant: ManagedMerchant; onChanged: () => void }) {
  const { error, run } = useAction();
  const m = props.merchant;
  const set = async (disabled: boolean) => {
    const done = (await run(() => operatorApi.setMerchantDisabled(m.id, disabled))) !== undefined;
    if (done) props.onChanged();
    return done;
  };
  return (
    <>
      {error && <span role="alert">{error} </span>}
      {m.disabled_at ? (
        <button type="button" class="button secondary" onClick={() => set(false)}>
          Enable<span class="visually-hidden"> {m.name}</span>
        </button>
      ) : (
        <ConfirmAction
          legend={`Confirm disabling ${m.name}`}
          warning="Its API keys will answer 401 at once."
          confirm="Disable merchant"
          run={() => set(true)}
        >
          Disable<span class="visually-hidden"> {m.name}</span>
        </ConfirmAction>
      )}
    </>
  );
}

/**
 * The operator's one merchants page (the admin's home; `/operator/merchants` redirects here): every
 * merchant, each opening its overview, with its environment, id, creation and status; create one
 * (its first key and its owner's invitation shown once), disable or enable it.
 */
export function Merchants() {
  const [merchants, reload] = useLoad(() => operatorApi.merchants(), "operator-merchants");
  const [created, setCreated] = useState<CreatedMerchant | undefined>();
  // Apart from the key: dismissing one of the two values shown once keeps the other.
  const [invite, setInvite] = useState<CreatedMerchant["owner_invite"]>(null);
  return (
    <section aria-labelledby="merchants-title">
      <h1 id="merchants-title">Merchants</h1>
      <p class="muted">
        A disabled merchant keeps its data; every one of its API keys answers <code>401</code> until it is enabled
        again.
      </p>
      <CreateMerchantForm
        onCreated={(merchant) => {
          setCreated(merchant);
          setInvite(merchant.owner_invite);
          reload();
        }}
      />
      {created && (
        <ShownOnce
          id="created-merchant-key"
          title={`${created.name} created`}
          label="First API key"
          value={created.api_key}
          onDismiss={() => setCreated(undefined)}
        >
          Its first API key, shown once. <strong>Hand it to the merchant now.</strong>
        </ShownOnce>
      )}
      {invite && (
        <ShownOnce
          id="created-merchant-invite"
          focus={false}
          title="Owner invited"
          label="Invitation link"
          value={invite.password_link}
          onDismiss={() => setInvite(null)}
        >
          {invite.email} sets a password with this link (valid 24 hours, once) and signs in as the merchant's owner.
          Pass it on now: it is not shown again.
        </ShownOnce>
      )}
      <Loading loaded={merchants} what="merchants" retry={reload}>
        {({ items }) => (
          <Table
            caption="All merchants"
            columns={COLUMNS}
            rows={items}
            rowAttributes={(m) => ({ class: m.disabled_at ? "revoked" : undefined })}
            empty={{ title: "No merchants yet.", children: "Create the first one above." }}
            actions={(m) => <MerchantActions merchant={m} onChanged={reload} />}
          />
        )}
      </Loading>
    </section>
  );
}
