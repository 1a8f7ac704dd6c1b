import type { ComponentChildren } from "preact";
import { useEffect, useRef } from "preact/hooks";
import { CopyButton } from "./CopyButton.tsx";

/**
 * A secret shown once (a new API key, a webhook secret, an invitation link, a new merchant's first
 * key): its heading takes the focus, then the value with a copy button and the "stored it" dismissal.
 */
export function ShownOnce(props: {
  id: string;
  title: string;
  label: string;
  value: string;
  onDismiss?: () => void;
  /** false: a second value shown beside a first one, whose heading has the focus. */
  focus?: boolean;
  children: ComponentChildren;
}) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    if (props.focus !== false) heading.current?.focus();
  }, []);
  return (
    <section class="card secret" aria-labelledby={`${props.id}-title`}>
      <h2 id={`${props.id}-title`} tabIndex={-1} ref={heading}>
        {props.title}
      </h2>
      <p>{props.children}</p>
      <div class="secret-row">
        <label for={props.id} class="visually-hidden">
          {props.label}
        </label>
        <input
          id={props.id}
          class="mono"
          readOnly
          value={props.value}
          onFocus={(e) => (e.target as HTMLInputElement).select()}
        />
        <CopyButton value={props.value} what={props.label} class="primary" />
      </div>
      {props.onDismiss && (
        <button type="button" class="button secondary align-start" onClick={props.onDismiss}>
          I have stored it
        </button>
      )}
    </section>
  );
}
