/**
 * A labelled select of string options, each shown as its `labels` entry or as itself (`""` may stand
 * for "All" via `empty`); `inline` puts the label beside it, as in a page's head.
 */
export function SelectField<V extends string>(props: {
  id: string;
  label: string;
  value: V | "";
  options: readonly V[];
  labels?: Readonly<Record<V, string>>;
  empty?: string;
  inline?: boolean;
  onChange: (value: V) => void;
}) {
  return (
    <div class={props.inline ? "field inline" : "field"}>
      <label for={props.id}>{props.label}</label>
      <select id={props.id} value={props.value} onChange={(e) => props.onChange(e.currentTarget.value as V)}>
        {props.empty !== undefined && <option value="">{props.empty}</option>}
        {props.options.map((option) => (
          <option key={option} value={option}>
            {props.labels?.[option] ?? option}
          </option>
        ))}
      </select>
    </div>
  );
}

/**
 * A labelled text input, required unless `optional` (a list's filter); `decimal` asks for a plain
 * decimal string (amounts are never floats), `mono` suits ids, hashes and addresses.
 */
export function TextField(props: {
  id: string;
  label: string;
  value: string;
  onInput: (value: string) => void;
  type?: "text" | "email" | "url" | "search" | "date";
  decimal?: boolean;
  mono?: boolean;
  grow?: boolean;
  optional?: boolean;
  maxLength?: number;
}) {
  return (
    <div class={props.grow ? "field grow" : "field"}>
      <label for={props.id}>{props.label}</label>
      <input
        id={props.id}
        type={(props.type ?? "text") as "text"}
        required={!props.optional}
        class={props.mono ? "mono" : undefined}
        maxLength={props.maxLength}
        inputMode={props.decimal ? "decimal" : undefined}
        pattern={props.decimal ? "\\d+(\\.\\d+)?" : undefined}
        value={props.value}
        onInput={(e) => props.onInput(e.currentTarget.value)}
      />
    </div>
  );
}

/** A UTC day (`YYYY-MM-DD`) of a finance date range: a text field of type date, optional unless `required`. */
export function DayField(props: {
  id: string;
  label: string;
  value: string;
  onInput: (value: string) => void;
  required?: boolean;
}) {
  return (
    <TextField
      id={props.id}
      label={props.label}
      type="date"
      optional={!props.required}
      value={props.value}
      onInput={props.onInput}
    />
  );
}

/** The created-day range of a list's filters (`{id}-from`, `{id}-to`): UTC days, both included. */
export function DayRangeFields(props: {
  id: string;
  from: string;
  to: string;
  onFrom: (value: string) => void;
  onTo: (value: string) => void;
}) {
  return (
    <>
      <DayField id={`${props.id}-from`} label="From (UTC day)" value={props.from} onInput={props.onFrom} />
      <DayField id={`${props.id}-to`} label="To (UTC day, included)" value={props.to} onInput={props.onTo} />
    </>
  );
}
