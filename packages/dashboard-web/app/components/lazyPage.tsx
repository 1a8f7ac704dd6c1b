import type { ComponentType, FunctionComponent, JSX } from "preact";
import { useEffect, useState } from "preact/hooks";
import { errorText } from "./format.ts";
import { Skeleton } from "./Loading.tsx";
import { Notice } from "./Notice.tsx";

/**
 * A page whose code is its own chunk, fetched the first time the page opens, so the first load
 * carries only the frame, sign-in and the home pages (what React.lazy and Suspense do, without
 * preact/compat's weight). Until the chunk arrives the page is a skeleton without an <h1>, so
 * useFocusHeading waits for the page's own heading. A chunk that fails to load (the network, a
 * deploy that replaced it) says so with a retry; the next try fetches it again.
 */
export function lazyPage<P extends object>(load: () => Promise<ComponentType<P>>): FunctionComponent<P> {
  let loaded: ComponentType<P> | undefined;
  let pending: Promise<ComponentType<P>> | undefined;
  const fetchPage = () => {
    pending ??= load().then(
      (page) => {
        loaded = page;
        return page;
      },
      (error: unknown) => {
        pending = undefined;
        throw error;
      },
    );
    return pending;
  };
  return function LazyPage(props: P) {
    const [, setArrived] = useState(0);
    const [failed, setFailed] = useState<string | undefined>();
    const [attempt, setAttempt] = useState(0);
    useEffect(() => {
      if (loaded) return;
      let live = true;
      fetchPage().then(
        () => live && setArrived((n) => n + 1),
        (error: unknown) => live && setFailed(errorText(error)),
      );
      return () => {
        live = false;
      };
    }, [attempt]);
    if (loaded) {
      const Page = loaded as ComponentType<P & JSX.IntrinsicAttributes>;
      return <Page {...props} />;
    }
    if (failed) {
      return (
        <Notice kind="error">
          This page could not be loaded ({failed}).{" "}
          <button
            type="button"
            class="button link"
            onClick={() => {
              setFailed(undefined);
              setAttempt((n) => n + 1);
            }}
          >
            Try again
          </button>
        </Notice>
      );
    }
    return <Skeleton what="the page" />;
  };
}
