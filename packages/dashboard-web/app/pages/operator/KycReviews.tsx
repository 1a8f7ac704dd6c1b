import { Fragment } from "preact";
import { useState } from "preact/hooks";
import { DisclosureButton } from "../../components/DisclosureButton.tsx";
import { SelectField } from "../../components/Fields.tsx";
import { formatDateTime } from "../../components/format.ts";
import { Empty, Loading } from "../../components/Loading.tsx";
import { Notice } from "../../components/Notice.tsx";
import { useAction } from "../../components/useAction.ts";
import { useLoad } from "../../components/useLoad.ts";
import { type KycQueueItem, type KycSubmission, operatorApi, type ReviewStatus } from "../../operator-api.ts";
import { href, linkHandler } from "../../router.ts";

type WithReasons = "reject" | "request_review";
type Asking = WithReasons | "approve";
const ACTION_NAMES: Record<WithReasons, string> = { reject: "Reject", request_review: "Request review" };
const STATUS_NAMES: Record<ReviewStatus | "ALL", string> = {
  PENDING: "Waiting for a decision",
  APPROVED: "Approved",
  REJECTED: "Rejected",
  REQUIRES_REVIEW: "Correction requested",
  ALL: "All",
};

/** The submitted fields as label and value, nested objects flattened ("residential address: city"). */
function fieldsOf(data: unknown, prefix = ""): Array<[string, string]> {
  if (data === null || typeof data !== "object") return [[prefix, String(data ?? "—")]];
  if (Array.isArray(data)) {
    return data.every((v) => v === null || typeof v !== "object")
      ? [[prefix, data.join(", ")]]
      : data.flatMap((v, i) => fieldsOf(v, `${prefix} ${i + 1}`));
  }
  return Object.entries(data).flatMap(([key, value]) =>
    fieldsOf(value, prefix ? `${prefix}: ${key.replace(/_/g, " ")}` : key.replace(/_/g, " ")),
  );
}

/** The submitted data, opened on the reviewer's request (each opening is in the audit log). */
function SubmittedData(props: { submissionId: string }) {
  const [shown, setShown] = useState<KycSubmission | undefined>();
  const { busy, error, run } = useAction();
  const dataId = `data-${props.submissionId}`;
  const show = async () => {
    const opened = await run(() => operatorApi.kycSubmission(props.submissionId));
    if (opened) setShown(opened);
  };
  return (
    <div class="submitted-data">
      <DisclosureButton
        open={shown !== undefined}
        controls={dataId}
        small
        disabled={busy}
        onClick={() => (shown ? setShown(undefined) : show())}
      >
        {shown ? "Hide submitted data" : "Show submitted data"}
      </DisclosureButton>
      {error && <Notice kind="error">{error}</Notice>}
      {shown && (
        <dl class="details" id={dataId} aria-label="Submitted data">
          {fieldsOf(shown.data).map(([label, value]) => (
            <Fragment key={label}>
              <dt>{label}</dt>
              <dd class="break">{value}</dd>
            </Fragment>
          ))}
        </dl>
      )}
      {shown && <p class="hint">Opening it was recorded in the audit log under your name.</p>}
    </div>
  );
}

/** One review: whose it is, what was submitted, then a decision asked twice (it is final). */
function ReviewRow(props: { review: KycQueueItem; onDecided: (message: string) => void }) {
  const r = props.review;
  const [asking, setAsking] = useState<Asking | undefined>();
  const [reasons, setReasons] = useState("");
  const { busy, error, run } = useAction();
  const reasonsId = `reasons-${r.submission_id}`;
  const decide = async (decision: Asking) => {
    const list = reasons
      .split("\n")
      .map((line) => line.trim())
      .filter(Boolean);
    const decided = await run(() =>
      operatorApi.decideKyc(r.submission_id, decision === "approve" ? { decision } : { decision, reasons: list }),
    );
    if (decided) props.onDecided(`${whose}: ${STATUS_NAMES[decided.status].toLowerCase()}.`);
  };
  const tier = r.tier.replace("_", " ");
  const whose = r.customer ? `${r.customer.name}'s ${tier} submission` : `Submission ${r.submission_id}`;
  return (
    <li class="card review">
      <div class="review-head">
        <div>
          <strong>
            {r.customer && r.merchant ? (
              <a
                href={href(`/merchants/${r.merchant.id}/customers/${r.customer.id}`)}
                onClick={linkHandler(`/merchants/${r.merchant.id}/customers/${r.customer.id}`)}
              >
                {r.customer.name}
              </a>
            ) : (
              "Unknown customer"
            )}
          </strong>{" "}
          ({r.customer_type === "BUSINESS" ? "business" : "individual"}, {tier})
          <div class="hint">
            Merchant {r.merchant?.name ?? "unknown"}
            {r.customer?.email && <>, {r.customer.email}</>}. Submission <code>{r.submission_id}</code>, submitted{" "}
            {formatDateTime(r.submitted_at)}
          </div>
        </div>
        <span class={`status review-${r.status.toLowerCase()}`}>{STATUS_NAMES[r.status]}</span>
      </div>
      {r.status !== "PENDING" && (
        <p class="hint">
          Decided by {r.decided_by} on {formatDateTime(r.decided_at)}
          {r.reasons.length > 0 && `: ${r.reasons.join("; ")}`}
        </p>
      )}
      <SubmittedData submissionId={r.submission_id} />
      {error && <Notice kind="error">{error}</Notice>}
      {r.status === "PENDING" && !asking && (
        <div class="button-row">
          <button type="button" class="button primary" onClick={() => setAsking("approve")}>
            Approve…<span class="visually-hidden"> {whose}</span>
          </button>
          <button type="button" class="button danger-outline" onClick={() => setAsking("reject")}>
            Reject…<span class="visually-hidden"> {whose}</span>
          </button>
          <button type="button" class="button secondary" onClick={() => setAsking("request_review")}>
            Request review…<span class="visually-hidden"> {whose}</span>
          </button>
        </div>
      )}
      {r.status === "PENDING" && asking === "approve" && (
        <fieldset class="confirm">
          <legend class="visually-hidden">Confirm the approval</legend>
          <span>Approve {whose}? The decision is final and recorded under your name.</span>
          <button type="button" class="button primary" disabled={busy} onClick={() => decide("approve")}>
            Confirm approval
          </button>
          <button type="button" class="button secondary" onClick={() => setAsking(undefined)}>
            Cancel
          </button>
        </fieldset>
      )}
      {r.status === "PENDING" && asking && asking !== "approve" && (
        <form
          onSubmit={(e) => {
            e.preventDefault();
            decide(asking);
          }}
        >
          <div class="field">
            <label for={reasonsId}>
              {asking === "reject" ? "Why it is rejected" : "What to correct"} (one reason per line; the merchant sees
              them). The decision is final.
            </label>
            <textarea
              id={reasonsId}
              required
              rows={3}
              value={reasons}
              onInput={(e) => setReasons((e.target as HTMLTextAreaElement).value)}
            />
          </div>
          <div class="button-row">
            <button type="submit" class={asking === "reject" ? "button danger" : "button primary"} disabled={busy}>
              {ACTION_NAMES[asking]}
            </button>
            <button type="button" class="button secondary" onClick={() => setAsking(undefined)}>
              Cancel
            </button>
          </div>
        </form>
      )}
    </li>
  );
}

/** The manual KYC review queue (KYC_PROVIDER=manual), oldest first. */
export function KycReviews() {
  const [status, setStatus] = useState<ReviewStatus | "ALL">("PENDING");
  const [reviews, reload] = useLoad(() => operatorApi.kycReviews(status), `kyc-${status}`);
  const [message, setMessage] = useState<string | undefined>();
  return (
    <section aria-labelledby="kyc-title">
      <div class="page-head">
        <h1 id="kyc-title">KYC reviews</h1>
        <SelectField
          id="kyc-status"
          label="Show"
          inline
          value={status}
          options={Object.keys(STATUS_NAMES) as Array<ReviewStatus | "ALL">}
          labels={STATUS_NAMES}
          onChange={setStatus}
        />
      </div>
      <p class="muted">
        A decision is final and recorded under your name; the customer's status follows at once, as with{" "}
        <code>payments kyc approve|reject|request-review</code>.
      </p>
      {message && <Notice kind="success">{message}</Notice>}
      <Loading loaded={reviews} what="reviews" retry={reload}>
        {({ items }) =>
          items.length === 0 ? (
            <Empty title={status === "PENDING" ? "No submission waits for a decision." : "No reviews here."}>
              Submissions appear here when KYC_PROVIDER=manual hands them to an operator.
            </Empty>
          ) : (
            <ul class="reviews">
              {items.map((review) => (
                <ReviewRow
                  key={review.submission_id}
                  review={review}
                  onDecided={(text) => {
                    setMessage(text);
                    reload();
                  }}
                />
              ))}
            </ul>
          )
        }
      </Loading>
    </section>
  );
}
