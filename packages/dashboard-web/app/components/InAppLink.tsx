import type { ComponentChildren } from "preact";
import { href, linkHandler } from "../router.ts";

/** A link to another page of the dashboard, followed in the app (no reload) unless opened elsewhere. */
export function InAppLink(props: { to: string; class?: string; children: ComponentChildren }) {
  return (
    <a class={props.class} href={href(props.to)} onClick={linkHandler(props.to)}>
      {props.children}
    </a>
  );
}
