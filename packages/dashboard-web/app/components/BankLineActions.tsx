import { useState } from "preact/hooks";
import { call } from "../api.ts";
import type { StatementLine } from "../operator-api.ts";
import { SelectField, TextField } from "./Fields.tsx";
import { Notice } from "./Notice.tsx";
import { useAction } from "./useAction.ts";

/** What an assigned line is credited to: the body field the route reads, and how the form names it. */
const TARGETS = ["virtual_account_id", "intent_id"] as const;
type Target = (typeof TARGETS)[number];
const TARGET_LABELS: Readonly<Record<Target, string>> = {
  virtual_account_id: "Virtual account id",
  intent_id: "Funding intent id",
};

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
  const [target, setTarget] = useState<Target>("virtual_account_id");
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
          <SelectField
            id={`${id}-target`}
            label="Assign to"
            value={target}
            options={TARGETS}
            labels={TARGET_LABELS}
            onChange={setTarget}
          />
          <TextField id={`${id}-id`} label="Id" mono value={targetId} onInput={setTargetId} />
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
        <TextField id={`${id}-reason`} label="Return reason" maxLength={500} value={reason} onInput={setReason} />
        <button type="submit" class="button danger-outline" disabled={busy}>
          Return to payer
        </button>
      </form>
    </div>
  );
}
