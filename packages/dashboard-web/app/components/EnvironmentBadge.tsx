import type { Environment } from "../api.ts";

export function EnvironmentBadge(props: { environment: Environment }) {
  return (
    <span class={`badge badge-${props.environment}`}>{props.environment === "production" ? "Live" : "Sandbox"}</span>
  );
}
