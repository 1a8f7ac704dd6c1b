/**
 * An API status shown as the API says it (ACTIVE, PENDING, …), its lowercase form the class that
 * colours it (styles.css `.status.active` and the like). For states people read in their own words, see
 * StateBadge.
 */
export function StatusText(props: { status: string }) {
  return <span class={`status ${props.status.toLowerCase()}`}>{props.status}</span>;
}
