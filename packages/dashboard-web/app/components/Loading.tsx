import type { ComponentChildren } from "preact";
import { Notice } from "./Notice.tsx";
import type { Loaded } from "./useLoad.ts";

/**
 * A platform page's data: "Loading…", an error with a retry (a 403 says which role may), or the
 * page's content once loaded.
 */
export function Loading<T>(props: {
  loaded: Loaded<T>;
  what: string;
  retry: () => void;
  children: (value: T) => ComponentChildren;
}) {
  const { loaded } = props;
  if (loaded.state === "loading") return <p class="muted">Loading {props.what}…</p>;
  if (loaded.state === "error") {
    return (
      <Notice kind="error">
        {loaded.error.status === 403 ? "Only an operator admin can see this page." : loaded.error.message}{" "}
        <button type="button" class="button link" onClick={props.retry}>
          Try again
        </button>
      </Notice>
    );
  }
  return <>{props.children(loaded.value)}</>;
}

/** A dashed box saying a list is empty and what would fill it. */
export function Empty(props: { title: string; children?: ComponentChildren }) {
  return (
    <div class="empty">
      <p>{props.title}</p>
      {props.children && <p class="muted">{props.children}</p>}
    </div>
  );
}

/** A platform page's heading with a button that loads its data again. */
export function RefreshableHead(props: { id: string; title: string; refresh: () => void }) {
  return (
    <div class="page-head">
      <h1 id={props.id}>{props.title}</h1>
      <button type="button" class="button secondary" onClick={props.refresh}>
        Refresh
      </button>
    </div>
  );
}
