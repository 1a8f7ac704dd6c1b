import type { ComponentChildren } from "preact";

/**
 * A button that shows or hides the region with id `controls`, telling screen readers which
 * (`aria-expanded`); its words (`children`) say what a click will do.
 */
export function DisclosureButton(props: {
  open: boolean;
  controls: string;
  onClick: () => void;
  small?: boolean;
  disabled?: boolean;
  children: ComponentChildren;
}) {
  return (
    <button
      type="button"
      class={props.small ? "button secondary small" : "button secondary"}
      aria-expanded={props.open}
      aria-controls={props.controls}
      disabled={props.disabled}
      onClick={props.onClick}
    >
      {props.children}
    </button>
  );
}
