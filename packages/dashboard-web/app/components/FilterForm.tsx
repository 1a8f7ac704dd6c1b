import type { ComponentChildren } from "preact";

/**
 * A list's filters: each field filters as it changes, so the form is never submitted (Enter in a
 * text field would otherwise reload the page); `label` names the form for screen readers.
 */
export function FilterForm(props: { label: string; children: ComponentChildren }) {
  return (
    <form class="inline-form filters" onSubmit={(e) => e.preventDefault()} aria-label={props.label}>
      {props.children}
    </form>
  );
}
