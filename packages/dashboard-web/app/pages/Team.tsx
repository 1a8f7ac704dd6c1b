import { useState } from "preact/hooks";
import type { Role, User } from "../api.ts";
import { dateFormat } from "../components/DepositTable.tsx";
import { errorText } from "../components/errorText.ts";
import { SelectField, TableHead, TextField } from "../components/Fields.tsx";
import { LoadFailed } from "../components/LoadFailed.tsx";
import { Notice } from "../components/Notice.tsx";
import { useLoad } from "../components/useLoad.ts";
import { canInvite, merchantApi } from "../merchant-api.ts";

const INVITABLE: Role[] = ["viewer", "developer", "finance", "owner"];

/**
 * The merchant's dashboard users; an owner invites one with a role. No mail leaves the service:
 * the invitee's one-time link to set a password is shown here, for the owner to pass on.
 */
export function Team(props: { user: User; merchantId: string }) {
  const [team, reload] = useLoad(() => merchantApi.team(props.merchantId), props.merchantId);
  const [email, setEmail] = useState("");
  const [role, setRole] = useState<Role>("viewer");
  const [link, setLink] = useState<{ email: string; url: string } | undefined>();
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  const invite = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      const invited = await merchantApi.invite(props.merchantId, { email: email.trim(), role });
      setLink({ email: invited.user.email, url: invited.password_link });
      setEmail("");
      reload();
    } catch (e) {
      setError(errorText(e));
    } finally {
      setBusy(false);
    }
  };
  if (team.state === "loading") return <p class="muted">Loading the team…</p>;
  if (team.state === "error") return <LoadFailed error={team.error} retry={reload} />;
  return (
    <section aria-labelledby="team-title">
      <h1 id="team-title">Team</h1>
      {canInvite(props.user.role) ? (
        <form class="card inline-form" onSubmit={invite}>
          <TextField id="invite-email" label="Email" type="email" grow value={email} onInput={setEmail} />
          <SelectField
            id="invite-role"
            label="Role"
            value={role}
            options={INVITABLE}
            onChange={(value) => setRole(value as Role)}
          />
          <button type="submit" class="button primary" disabled={busy}>
            Invite
          </button>
        </form>
      ) : (
        <p class="muted role-note">Only an owner can invite users.</p>
      )}
      {error && <Notice kind="error">{error}</Notice>}
      {link && (
        <section class="card secret" aria-labelledby="invite-link-title">
          <h2 id="invite-link-title">Invitation link for {link.email}</h2>
          <p>
            Send this one-time link to them: it sets their password and works once, for 24 hours. It is not shown again.
          </p>
          <label for="invite-link" class="visually-hidden">
            Invitation link
          </label>
          <input id="invite-link" class="mono" readOnly value={link.url} />
        </section>
      )}
      <table class="table">
        <caption class="visually-hidden">Users of this merchant</caption>
        <TableHead columns={["Email", "Role", "Status", "Added"]} />
        <tbody>
          {team.value.items.map((member) => (
            <tr key={member.id}>
              <td data-label="Email">{member.email}</td>
              <td data-label="Role">{member.role}</td>
              <td data-label="Status">{member.has_password ? "Active" : "Invited (no password yet)"}</td>
              <td data-label="Added">{dateFormat.format(new Date(member.created_at))}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
