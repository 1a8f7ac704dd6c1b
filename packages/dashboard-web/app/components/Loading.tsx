import type { ComponentChildren } from "preact";
import { LoadFailed } from "./LoadFailed.tsx";
import { Notice } from "./Notice.tsx";
import type { Loaded } from "./useLoad.ts";

/**
 * Where data is on its way: grey bars in the shape of a few rows, marked busy, named for screen
 * readers; no "Loading…" text to wait on.
 */
export function Skeleton(props: { what: string; rows?: number }) {
  return (
    <div class="skeleton" role="status" aria-busy="true">
      <span class="visually-hidden">Loading {props.what}</span>
      {Array.from({ length: props.rows ?? 3 }, (_, i) => (
        <div key={i} class="skeleton-bar" />
      ))}
    </div>
  );
}

/**
 * A page's data: a skeleton, an error with a retry (on a platform page a 403 says which role may; on
 * a `merchantPage` LoadFailed's, whose 404 is a merchant this user cannot see), or the page's
 * content once loaded.
 */
export function Loading<T>(props: {
  loaded: Loaded<T>;
  what: string;
  retry: () => void;
  merchantPage?: boolean;
  children: (value: T) => ComponentChildren;
}) {
  const { loaded } = props;
  if (loaded.state === "loading") return <Skeleton what={props.what} />;
  if (loaded.state === "error" && props.merchantPage) return <LoadFailed error={loaded.error} retry={props.retry} />;
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
