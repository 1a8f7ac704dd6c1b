import { CopyButton } from "./CopyButton.tsx";

/** A value people paste elsewhere (an id, an address): in monospace, with its copy button beside it. */
export function CopyableValue(props: { value: string; what: string }) {
  return (
    <>
      <span class="mono">{props.value}</span> <CopyButton value={props.value} what={props.what} />
    </>
  );
}
