import { type ComponentChildren, Fragment } from "preact";

/** One term of a details list and what it says; `valueClass` styles the value ("mono", "mono break"). */
export interface Description {
  term: string;
  value: ComponentChildren;
  valueClass?: string;
}

/**
 * A record's details as a term/value list (`dl.details`): the pages write what each term says, this
 * writes the markup once. A `false` item is one that does not apply to this record (left out).
 */
export function DescriptionList(props: { items: readonly (Description | false)[]; card?: boolean }) {
  return (
    <dl class={props.card ? "details card" : "details"}>
      {props.items
        .filter((item): item is Description => item !== false)
        .map((item) => (
          <Fragment key={item.term}>
            <dt>{item.term}</dt>
            <dd class={item.valueClass}>{item.value}</dd>
          </Fragment>
        ))}
    </dl>
  );
}
