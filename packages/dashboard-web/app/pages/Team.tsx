import { useState } from "preact/hooks";
import type { Role, User } from "../api.ts";
import { SelectField, TextField } from "../components/Fields.tsx";
import { formatDateTime } from "../components/format.ts";
import { LoadFailed } from "../components/LoadFailed.tsx";
import { Skeleton } from "../components/Loading.tsx";
import { Notice } from "../components/Notice.tsx";
import { ShownOnce } from "../components/ShownOnce.tsx";
import { type Column, Table } from "../components/Table.tsx";
import { TeamMemberActions } from "../components/TeamMemberActions.tsx";
import { useAction } from "../components/useAction.ts";
import { useLoad } from "../components/useLoad.ts";
import { canInvite, merchantApi, type TeamMember } from "../merchant-api.ts";

const INVITABLE: Role[] = ["viewer", "developer", "finance", "owner"];

const COLUMNS: ReadonlyArray<Column<TeamMember>> = [
  { header: "Email", cell: (member) => member.email },
  { header: "Role", cell: (member) => member.role },
  { header: "Status", cell: (member) => (member.has_password ? "Active" : "Invited (no password yet)") },
  { header: "Added", cell: (member) => formatDateTime(member.created_at) },
];

/**
 * The merchant's dashboard users; an owner invites one with a role, changes a role, removes a user
 * or withdraws an invite, and sends a new link to someone who has not set a password. No mail leaves the service:
 * the invitee's one-time link to set a password is shown here, for the owner to pass on.
 */
export function Team(props: { user: User; merchantId: string }) {
  const [team, reload] = useLoad(() => merchantApi.team(props.merchantId), props.merchantId);
  const [email, setEmail] = useState("");
  const [role, setRole] = useState<Role>("viewer");
  const [link, setLink] = useState<{ email: string; url: string } | undefined>();
  const { busy, error, run } = useAction();
  const invite = async (event: Event) => {
    event.preventDefault();
    const invited = await run(() => merchantApi.invite(props.merchantId, { email: email.trim(), role }));
    if (!invited) return;
    setLink({ email: invited.user.email, url: invited.password_link });
    setEmail("");
    reload();
  };
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
        <ShownOnce
          id="invite-link"
          title={`Invitation link for ${link.email}`}
          label="Invitation link"
          value={link.url}
          onDismiss={() => setLink(undefined)}
        >
          Send this one-time link to them: it sets their password and works once, for 24 hours. It is not shown again.
        </ShownOnce>
      )}
      {team.state === "loading" ? (
        <Skeleton what="the team" />
      ) : (
        <Table
          caption="Users of this merchant"
          columns={COLUMNS}
          rows={team.value.items}
          {...(canInvite(props.user.role)
            ? {
                actions: (member: TeamMember) => (
                  <TeamMemberActions
                    merchantId={props.merchantId}
                    member={member}
                    onChanged={reload}
                    onInvited={(invited) => setLink({ email: invited.user.email, url: invited.password_link })}
                  />
                ),
              }
            : {})}
        />
      )}
    </section>
  );
}
