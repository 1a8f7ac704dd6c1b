import { useState } from "preact/hooks";
import { call } from "../api.ts";
import type { StatementLine } from "../operator-api.ts";
import { Notice } from "./Notice.tsx";
import { useAction } from "./useAction.ts";

const linePath = (lineId: string, action: "assign" | "return") =>
  `/finance/bank-lines/${encodeURIComponent(lineId)}/${action}`;

/**
 * One unmatched bank line's way out (packages/dashboard/src/operator-bank-line-routes.ts, as
 * `payments bank assign|return`): a USD credit assigned to a virtual account or a transfer's bank
 * funding intent by its id, or the line returned to the payer with a reason. A refusal (an unknown
 * account, a line already resolved) shows here.
 */
export function BankLineActions(props: { line: StatementLine; onChanged: () => void }) {
  const { line } = props;
  const [target, setTarget] = useState<"virtual_account_id" | "intent_id">("virtual_account_id");
  const [targetId, setTargetId] = useState("");
  const [reason, setReason] = useState("");
  const { busy, error, run } = useAction();
  const act = async (event: Event, action: "assign" | "return") => {
    event.preventDefault();
    const body = action === "assign" ? { [target]: targetId.trim() } : { reason: reason.trim() };
    if ((await run(() => call("POST", linePath(line.id, action), body))) !== undefined) props.onChanged();
  };
  const assignable = line.direction === "CREDIT" && line.currency === "USD";
  const id = `line-${line.id}`;
  return (
    <div class="row-actions">
      {error && <Notice kind="error">{error}</Notice>}
      {assignable && (
        <form
          class="inline-form"
          onSubmit={(e) => act(e, "assign")}
          aria-label={`Assign line ${line.bankReference ?? line.id}`}
        >
          <div class="field">
            <label for={`${id}-target`}>Assign to</label>
            <select
              id={`${id}-target`}
              value={target}
              onChange={(e) => setTarget(e.currentTarget.value as typeof target)}
            >
              <option value="virtual_account_id">Virtual account id</option>
              <option value="intent_id">Funding intent id</option>
            </select>
          </div>
          <div class="field">
            <label for={`${id}-id`}>Id</label>
            <input
              id={`${id}-id`}
              class="mono"
              required
              value={targetId}
              onInput={(e) => setTargetId(e.currentTarget.value)}
            />
          </div>
          <button type="submit" class="button secondary" disabled={busy}>
            Assign
          </button>
        </form>
      )}
      <form
        class="inline-form"
        onSubmit={(e) => act(e, "return")}
        aria-label={`Return line ${line.bankReference ?? line.id}`}
      >
        <div class="field">
          <label for={`${id}-reason`}>Return reason</label>
          <input
            id={`${id}-reason`}
            required
            maxLength={500}
            value={reason}
            onInput={(e) => setReason(e.currentTarget.value)}
          />
        </div>
        <button type="submit" class="button danger-outline" disabled={busy}>
          Return to payer
        </button>
      </form>
    </div>
  );
}
