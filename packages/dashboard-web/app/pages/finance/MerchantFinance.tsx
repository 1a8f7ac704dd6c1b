import { JournalExport } from "../../components/JournalExport.tsx";
import { TransfersReport } from "../../components/TransfersReport.tsx";

/** A merchant's finance page (its owner, finance people and the admin): its journal lines as CSV, its transfers report. */
export function MerchantFinance(props: { merchantId: string }) {
  return (
    <section aria-labelledby="merchant-finance-title">
      <h1 id="merchant-finance-title">Finance</h1>
      <JournalExport merchantId={props.merchantId} />
      <TransfersReport merchantId={props.merchantId} />
    </section>
  );
}
