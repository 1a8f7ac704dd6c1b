import type { ApiError } from "../api.ts";
import { Notice } from "./Notice.tsx";

/** A merchant page whose load failed: 404 (no merchant this user can see) or an error with a retry. */
export function LoadFailed(props: { error: ApiError; retry: () => void }) {
  if (props.error.status === 404) {
    return (
      <section>
        <h1>Merchant not found</h1>
        <Notice kind="error">There is no merchant here that you can see.</Notice>
      </section>
    );
  }
  return (
    <Notice kind="error">
      {props.error.message}{" "}
      <button type="button" class="button link" onClick={props.retry}>
        Try again
      </button>
    </Notice>
  );
}
