import type { StateLabel } from "./states.ts";

/** A state as a coloured pill with its words; `data-state` keeps the API's code for tests and styles. */
export function StateBadge(props: { state: StateLabel; code: string }) {
  return (
    <span class={`state state-${props.state.family}`} data-state={props.code}>
      {props.state.label}
    </span>
  );
}
