import { useEffect, useState } from "preact/hooks";

/** Paths under /dashboard; the server answers index.html for every one, the app picks the page. */
const BASE = "/dashboard";

export function currentPath(): string {
  const path = window.location.pathname.startsWith(BASE) ? window.location.pathname.slice(BASE.length) : "/";
  return path === "" ? "/" : path;
}

export function navigate(path: string, options: { replace?: boolean } = {}): void {
  const url = `${BASE}${path}`;
  if (options.replace) window.history.replaceState(null, "", url);
  else window.history.pushState(null, "", url);
  window.dispatchEvent(new PopStateEvent("popstate"));
}

export function usePath(): string {
  const [path, setPath] = useState(currentPath());
  useEffect(() => {
    const update = () => setPath(currentPath());
    window.addEventListener("popstate", update);
    return () => window.removeEventListener("popstate", update);
  }, []);
  return path;
}

/** An in-app link: a real <a href> (keyboard, middle-click) that navigates without a reload. */
export function linkHandler(path: string) {
  return (event: MouseEvent) => {
    if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey) return;
    event.preventDefault();
    navigate(path);
  };
}

export function href(path: string): string {
  return `${BASE}${path}`;
}
