import { formatDateTime } from "./format.ts";

/** "Active", or what ended it and when ("Revoked …" for a key, "Disabled …" for a merchant). */
export function ActiveStatus(props: { endedAt: string | null; ended: string }) {
  return props.endedAt ? (
    <span class="status revoked">
      {props.ended} {formatDateTime(props.endedAt)}
    </span>
  ) : (
    <span class="status active">Active</span>
  );
}
