import type { ComponentChildren } from "preact";
import { Loading, RefreshableHead } from "./Loading.tsx";
import { useLoad } from "./useLoad.ts";

/**
 * A platform page showing one load: its heading with a Refresh button, then a skeleton, an error
 * with a retry, or `children` of what arrived. The operator pages differ only in what they load and
 * show, so the frame (landmark, heading, loading states) is written once here.
 */
export function RefreshablePage<T>(props: {
  title: string;
  /** What is loading, for the skeleton's screen-reader text ("job queues"). */
  what: string;
  load: () => Promise<T>;
  children: (value: T) => ComponentChildren;
}) {
  // One page, one load: its title is key enough, and its heading's id names the landmark.
  const [loaded, reload] = useLoad(props.load, props.title);
  const id = `${props.title.toLowerCase().replaceAll(" ", "-")}-title`;
  return (
    <section aria-labelledby={id}>
      <RefreshableHead id={id} title={props.title} refresh={reload} />
      <Loading loaded={loaded} what={props.what} retry={reload}>
        {props.children}
      </Loading>
    </section>
  );
}
