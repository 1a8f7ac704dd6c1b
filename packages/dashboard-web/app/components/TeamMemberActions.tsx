import { useState } from "preact/hooks";
import type { InviteAnswer } from "../answers.ts";
import { call, type Role } from "../api.ts";
import { merchantApi, type TeamMember } from "../merchant-api.ts";
import { ConfirmAction } from "./ConfirmAction.tsx";
import { useAction } from "./useAction.ts";

const ROLES: Role[] = ["viewer", "developer", "finance", "owner"];
const path = (merchantId: string, memberId: string) =>
  `/merchants/${encodeURIComponent(merchantId)}/users/${encodeURIComponent(memberId)}`;

/**
 * An owner's actions on one row of the team (packages/dashboard/src/team-routes.ts): change the role,
 * remove the user or withdraw the invite (asked twice), and for someone without a password yet a new
 * invitation link (a newer invite replaces the open one). A refusal (the last owner) shows here.
 */
export function TeamMemberActions(props: {
  merchantId: string;
  member: TeamMember;
  onChanged: () => void;
  onInvited: (invited: InviteAnswer) => void;
}) {
  const { member } = props;
  const [role, setRole] = useState<Role>(member.role);
  const { busy, error, run } = useAction();
  const done = async <T,>(work: () => Promise<T>) => {
    const answer = await run(work);
    if (answer !== undefined) props.onChanged();
    return answer;
  };
  const selectId = `role-${member.id}`;
  return (
    <div class="row-actions">
      {error && <span role="alert">{error} </span>}
      {member.has_password && (
        <>
          <label for={selectId} class="visually-hidden">
            Role of {member.email}
          </label>
          <select id={selectId} value={role} onChange={(e) => setRole(e.currentTarget.value as Role)}>
            {ROLES.map((r) => (
              <option key={r} value={r}>
                {r}
              </option>
            ))}
          </select>{" "}
          <button
            type="button"
            class="button secondary"
            disabled={busy || role === member.role}
            onClick={() => done(() => call("PATCH", path(props.merchantId, member.id), { role }))}
          >
            Change role<span class="visually-hidden"> of {member.email}</span>
          </button>{" "}
        </>
      )}
      {!member.has_password && (
        <>
          <button
            type="button"
            class="button secondary"
            disabled={busy}
            onClick={async () => {
              const invited = await done(() =>
                merchantApi.invite(props.merchantId, { email: member.email, role: member.role }),
              );
              if (invited) props.onInvited(invited);
            }}
          >
            Resend invite<span class="visually-hidden"> to {member.email}</span>
          </button>{" "}
        </>
      )}
      <ConfirmAction
        legend={`Confirm removing ${member.email}`}
        warning={
          member.has_password ? "They are signed out at once and cannot sign in again." : "The link stops working."
        }
        confirm={member.has_password ? "Remove user" : "Withdraw invite"}
        run={async () => (await done(() => call("DELETE", path(props.merchantId, member.id)))) !== undefined}
      >
        Remove<span class="visually-hidden"> {member.email}</span>
      </ConfirmAction>
    </div>
  );
}
