import { useLoad } from "./useLoad.ts";

/**
 * The event types an endpoint receives, picked from the service's own list (one checkbox each,
 * grouped by object), or "every type" (`*`, present and future). `value` is what the API takes.
 */
export function EventTypePicker(props: {
  id: string;
  load: () => Promise<{ items: string[] }>;
  value: readonly string[];
  onChange: (value: string[]) => void;
}) {
  const [types] = useLoad(props.load, props.id);
  const all = props.value.includes("*");
  const toggle = (type: string, on: boolean) =>
    props.onChange(on ? [...props.value.filter((t) => t !== "*"), type] : props.value.filter((t) => t !== type));
  const groups = new Map<string, string[]>();
  if (types.state === "ready") {
    for (const type of types.value.items) {
      const group = type.split(".")[0] ?? type;
      groups.set(group, [...(groups.get(group) ?? []), type]);
    }
  }
  return (
    <fieldset class="event-types" id={props.id}>
      <legend>Event types</legend>
      <label class="check">
        <input type="checkbox" checked={all} onChange={(e) => props.onChange(e.currentTarget.checked ? ["*"] : [])} />{" "}
        Every type, present and future
      </label>
      {types.state === "error" && <p class="hint">The list of types could not be read; every type is kept.</p>}
      {!all &&
        [...groups].map(([group, list]) => (
          <div key={group} class="event-group">
            <span class="hint">{group.replace(/_/g, " ")}</span>
            {list.map((type) => (
              <label key={type} class="check">
                <input
                  type="checkbox"
                  checked={props.value.includes(type)}
                  onChange={(e) => toggle(type, e.currentTarget.checked)}
                />{" "}
                <code>{type}</code>
              </label>
            ))}
          </div>
        ))}
    </fieldset>
  );
}
