import type { ComponentChildren } from "preact";
import { useState } from "preact/hooks";

/**
 * A destructive action asked twice (revoke a key, disable a merchant): the first button opens a
 * confirmation saying what follows, whose danger button runs it; it closes once `run` answers true.
 */
export function ConfirmAction(props: {
  /** The first button's text (with a hidden part naming the object, for a screen reader's list of buttons). */
  children: ComponentChildren;
  legend: string;
  warning: string;
  confirm: string;
  run: () => Promise<boolean>;
}) {
  const [confirming, setConfirming] = useState(false);
  const [busy, setBusy] = useState(false);
  if (!confirming) {
    return (
      <button type="button" class="button danger-outline" onClick={() => setConfirming(true)}>
        {props.children}
      </button>
    );
  }
  return (
    <fieldset class="confirm">
      <legend class="visually-hidden">{props.legend}</legend>
      <span>{props.warning}</span>
      <button
        type="button"
        class="button danger"
        disabled={busy}
        onClick={async () => {
          setBusy(true);
          const done = await props.run();
          setBusy(false);
          if (done) setConfirming(false);
        }}
      >
        {props.confirm}
      </button>
      <button type="button" class="button secondary" onClick={() => setConfirming(false)}>
        Cancel
      </button>
    </fieldset>
  );
}
