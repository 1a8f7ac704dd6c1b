import { useEffect, useRef } from "preact/hooks";

/** How long a page may take to show its heading (its data loading) before the focus gives up on it. */
const HEADING_WAIT_MS = 10_000;

function focusHeading(main: HTMLElement): boolean {
  const heading = main.querySelector("h1");
  if (!heading) return false;
  heading.setAttribute("tabindex", "-1");
  heading.focus();
  return true;
}

/**
 * After an in-app navigation (not the first page load), the focus moves to the new page's <h1>, so a
 * screen reader announces the page and the keyboard starts from its top, as after a full page load.
 * A page whose heading waits for its data gets the focus when the heading appears.
 */
export function useFocusHeading(path: string): void {
  const first = useRef(true);
  useEffect(() => {
    if (first.current) {
      first.current = false;
      return;
    }
    const main = document.getElementById("main");
    if (!main || focusHeading(main)) return;
    const observer = new MutationObserver(() => {
      if (focusHeading(main)) observer.disconnect();
    });
    observer.observe(main, { childList: true, subtree: true });
    const timer = setTimeout(() => observer.disconnect(), HEADING_WAIT_MS);
    return () => {
      observer.disconnect();
      clearTimeout(timer);
    };
  }, [path]);
}
