import { InAppLink } from "./InAppLink.tsx";

/** A list's link to a customer's page, shown as its id's first eight characters (the full id is in the page). */
export function CustomerIdLink(props: { merchantId: string; customerId: string }) {
  return (
    <InAppLink to={`/merchants/${props.merchantId}/customers/${props.customerId}`}>
      <span class="mono">{props.customerId.slice(0, 8)}</span>
      <span class="visually-hidden"> (customer)</span>
    </InAppLink>
  );
}
