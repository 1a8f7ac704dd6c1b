/** Previous / next for the numbered pages of a /v1 list (customers, wallets, transfers). */
export function Pager(props: { page: number; totalPages: number; onPage: (page: number) => void; label: string }) {
  if (props.totalPages <= 1) return null;
  return (
    <nav class="pager" aria-label={`${props.label} pages`}>
      <button
        type="button"
        class="button secondary"
        disabled={props.page <= 1}
        onClick={() => props.onPage(props.page - 1)}
      >
        Previous
      </button>
      <span>
        Page {props.page} of {props.totalPages}
      </span>
      <button
        type="button"
        class="button secondary"
        disabled={props.page >= props.totalPages}
        onClick={() => props.onPage(props.page + 1)}
      >
        Next
      </button>
    </nav>
  );
}
