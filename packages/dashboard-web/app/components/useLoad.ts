import { useCallback, useEffect, useState } from "preact/hooks";
import { ApiError } from "../api.ts";

export type Loaded<T> = { state: "loading" } | { state: "error"; error: ApiError } | { state: "ready"; value: T };

/** Loads once per `key`, with a reload for after a change. */
export function useLoad<T>(load: () => Promise<T>, key: string): [Loaded<T>, () => void] {
  const [result, setResult] = useState<Loaded<T>>({ state: "loading" });
  const [round, setRound] = useState(0);
  // Reloads when `key` (what `load` reads) or `round` (a reload) changes, not for each new `load` closure.
  useEffect(() => {
    let live = true;
    load().then(
      (value) => live && setResult({ state: "ready", value }),
      (error: unknown) =>
        live &&
        setResult({
          state: "error",
          error: error instanceof ApiError ? error : new ApiError(0, "unknown", String(error)),
        }),
    );
    return () => {
      live = false;
    };
  }, [key, round]);
  return [result, useCallback(() => setRound((n) => n + 1), [])];
}
