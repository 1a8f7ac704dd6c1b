import { useEffect } from "preact/hooks";

/**
 * Calls `refresh` every `ms` while the page is open (the overview, a confirming deposit). An ended
 * session stops it: the 401 sends the app to sign-in, which unmounts the page.
 */
export function usePoll(refresh: () => void, ms: number, active = true): void {
  useEffect(() => {
    if (!active) return;
    const timer = setInterval(refresh, ms);
    return () => clearInterval(timer);
  }, [refresh, ms, active]);
}
