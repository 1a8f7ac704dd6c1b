import { JournalExport } from "../../components/JournalExport.tsx";

/** A merchant's finance page (its owner, finance people and the admin): its own journal lines as CSV. */
export function MerchantFinance(props: { merchantId: string }) {
  return (
    <section aria-labelledby="merchant-finance-title">
      <h1 id="merchant-finance-title">Finance</h1>
      <JournalExport merchantId={props.merchantId} />
    </section>
  );
}
