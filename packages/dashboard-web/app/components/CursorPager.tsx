import type { ComponentChildren } from "preact";

/**
 * Newer / Older for a keyset list (deposits, the audit log), which walks by cursor and has no page
 * count: Newer goes back one cursor, Older follows the page's `next` (none: the oldest page).
 */
export function CursorPager(props: {
  label: string;
  atNewest: boolean;
  next: string | null | undefined;
  onNewer: () => void;
  onOlder: (next: string) => void;
  /** Between the two buttons (the page's number). */
  children?: ComponentChildren;
}) {
  const { next } = props;
  return (
    <nav class="pager" aria-label={`${props.label} pages`}>
      <button type="button" class="button secondary" disabled={props.atNewest} onClick={props.onNewer}>
        Newer
      </button>
      {props.children}
      <button type="button" class="button secondary" disabled={!next} onClick={() => next && props.onOlder(next)}>
        Older
      </button>
    </nav>
  );
}
