import { CopyButton } from "./CopyButton.tsx";

/**
 * A value people paste elsewhere (an id, an address, a transaction hash): in monospace, with its
 * copy button beside it. `breakable` lets a long one (a hash) wrap anywhere instead of overflowing.
 */
export function CopyableValue(props: { value: string; what: string; breakable?: boolean }) {
  return (
    <>
      <span class={props.breakable ? "mono break" : "mono"}>{props.value}</span>{" "}
      <CopyButton value={props.value} what={props.what} />
    </>
  );
}
