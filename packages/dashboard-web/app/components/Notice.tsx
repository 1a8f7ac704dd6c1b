import type { ComponentChildren } from "preact";

/** An error (role="alert": screen readers announce it) or a neutral note. */
export function Notice(props: { kind: "error" | "info" | "success"; children: ComponentChildren }) {
  return (
    <div class={`notice notice-${props.kind}`} role={props.kind === "error" ? "alert" : "status"}>
      {props.children}
    </div>
  );
}
