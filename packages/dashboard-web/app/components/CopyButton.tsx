import { useEffect, useState } from "preact/hooks";

/** The browser's clipboard, or the old way where it has none (plain http on another host than localhost). */
async function writeClipboard(text: string): Promise<void> {
  if (navigator.clipboard?.writeText) return navigator.clipboard.writeText(text);
  const area = document.createElement("textarea");
  area.value = text;
  area.setAttribute("readonly", "");
  area.style.position = "fixed";
  area.style.opacity = "0";
  document.body.append(area);
  area.select();
  const copied = document.execCommand("copy");
  area.remove();
  if (!copied) throw new Error("copy refused");
}

/**
 * A button that copies `value` (an address, a key, a link meant to be pasted): its name says what
 * ("Copy BASE address"), and a status line announces "Copied" to screen readers, or says to copy by
 * hand when the browser refuses.
 */
export function CopyButton(props: {
  value: string;
  what: string /** Its button classes (default: a small secondary one). */;
  class?: string;
}) {
  const [state, setState] = useState<"idle" | "copied" | "failed">("idle");
  useEffect(() => {
    if (state !== "copied") return;
    const timer = setTimeout(() => setState("idle"), 4_000);
    return () => clearTimeout(timer);
  }, [state]);
  const copy = async () => {
    try {
      await writeClipboard(props.value);
      setState("copied");
    } catch {
      setState("failed");
    }
  };
  return (
    <span class="copy">
      <button
        type="button"
        class={`button ${props.class ?? "secondary small"}`}
        aria-label={`${state === "copied" ? "Copied" : "Copy"} ${props.what}`}
        onClick={copy}
      >
        {state === "copied" ? "Copied" : "Copy"}
      </button>
      <span role="status" class={state === "failed" ? "hint" : "visually-hidden"}>
        {state === "copied" && "Copied"}
        {state === "failed" && "The browser refused the clipboard: select the text and copy it by hand."}
      </span>
    </span>
  );
}
