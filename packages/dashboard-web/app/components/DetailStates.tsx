import type { ComponentChildren } from "preact";
import { LoadFailed } from "./LoadFailed.tsx";
import { Skeleton } from "./Loading.tsx";
import type { Loaded } from "./useLoad.ts";

/**
 * A detail page (one deposit, transfer, wallet, customer, ...) until its record is there: the back link with the
 * heading and a skeleton, "not found" for the API's 404 of that record (another merchant's id says
 * the same), or the error with a retry; then `children` of the record.
 */
export function DetailStates<T>(props: {
  /** The record's name as the heading and the API's 404 message say it ("Deposit"). */
  what: string;
  backLink: ComponentChildren;
  loaded: Loaded<T>;
  retry: () => void;
  children: (value: T) => ComponentChildren;
}) {
  const { loaded, what } = props;
  const lower = what.toLowerCase();
  const titleId = `${lower.replaceAll(" ", "-")}-title`;
  if (loaded.state === "loading") {
    return (
      <section aria-labelledby={titleId}>
        {props.backLink}
        <h1 id={titleId}>{what}</h1>
        <Skeleton what={`the ${lower}`} rows={6} />
      </section>
    );
  }
  if (loaded.state === "error") {
    if (loaded.error.status === 404 && loaded.error.message.includes(what)) {
      return (
        <section>
          {props.backLink}
          <h1>{what} not found</h1>
          <p class="muted">There is no {lower} here that you can see.</p>
        </section>
      );
    }
    return <LoadFailed error={loaded.error} retry={props.retry} />;
  }
  return <>{props.children(loaded.value)}</>;
}
