import { useState } from "preact/hooks";
import { errorText } from "./format.ts";

/**
 * A button's action on the server: `busy` while it runs (to disable the button), then its error as
 * a sentence for a notice, or its answer. `run` answers undefined when the action failed.
 */
export function useAction(): {
  busy: boolean;
  error: string | undefined;
  run: <T>(work: () => Promise<T>) => Promise<T | undefined>;
} {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | undefined>();
  const run = async <T>(work: () => Promise<T>): Promise<T | undefined> => {
    setBusy(true);
    setError(undefined);
    try {
      return await work();
    } catch (e) {
      setError(errorText(e));
      return undefined;
    } finally {
      setBusy(false);
    }
  };
  return { busy, error, run };
}
