import { useState } from "preact/hooks";
import { formatDateTime } from "../../components/format.ts";
import { Empty, Loading } from "../../components/Loading.tsx";
import { Notice } from "../../components/Notice.tsx";
import { useAction } from "../../components/useAction.ts";
import { useLoad } from "../../components/useLoad.ts";
import { type KycReview, operatorApi, type ReviewStatus } from "../../operator-api.ts";

type WithReasons = "reject" | "request_review";
const ACTION_NAMES: Record<WithReasons, string> = { reject: "Reject", request_review: "Request review" };
const STATUS_NAMES: Record<ReviewStatus | "ALL", string> = {
  PENDING: "Waiting for a decision",
  APPROVED: "Approved",
  REJECTED: "Rejected",
  REQUIRES_REVIEW: "Correction requested",
  ALL: "All",
};

/** One review: approve at once, or reject / request review with the reasons the merchant will see. */
function ReviewRow(props: { review: KycReview; onDecided: (message: string) => void }) {
  const r = props.review;
  const [asking, setAsking] = useState<WithReasons | undefined>();
  const [reasons, setReasons] = useState("");
  const { busy, error, run } = useAction();
  const reasonsId = `reasons-${r.submission_id}`;
  const decide = async (decision: "approve" | WithReasons) => {
    const list = reasons
      .split("\n")
      .map((line) => line.trim())
      .filter(Boolean);
    const decided = await run(() =>
      operatorApi.decideKyc(r.submission_id, decision === "approve" ? { decision } : { decision, reasons: list }),
    );
    if (decided) props.onDecided(`Submission ${r.submission_id}: ${STATUS_NAMES[decided.status].toLowerCase()}.`);
  };
  return (
    <li class="card review">
      <div class="review-head">
        <div>
          <strong>
            {r.customer_type === "BUSINESS" ? "Business" : "Individual"}, {r.tier.replace("_", " ")}
          </strong>
          <div class="hint">
            Submission <code>{r.submission_id}</code>, submitted {formatDateTime(r.submitted_at)}
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
      {error && <Notice kind="error">{error}</Notice>}
      {r.status === "PENDING" && !asking && (
        <div class="button-row">
          <button type="button" class="button primary" disabled={busy} onClick={() => decide("approve")}>
            Approve<span class="visually-hidden"> submission {r.submission_id}</span>
          </button>
          <button type="button" class="button danger-outline" onClick={() => setAsking("reject")}>
            Reject…<span class="visually-hidden"> submission {r.submission_id}</span>
          </button>
          <button type="button" class="button secondary" onClick={() => setAsking("request_review")}>
            Request review…<span class="visually-hidden"> submission {r.submission_id}</span>
          </button>
        </div>
      )}
      {r.status === "PENDING" && asking && (
        <form
          onSubmit={(e) => {
            e.preventDefault();
            decide(asking);
          }}
        >
          <div class="field">
            <label for={reasonsId}>
              {asking === "reject" ? "Why it is rejected" : "What to correct"} (one reason per line; the merchant sees
              them)
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
        <div class="field inline">
          <label for="kyc-status">Show</label>
          <select
            id="kyc-status"
            value={status}
            onChange={(e) => setStatus((e.target as HTMLSelectElement).value as ReviewStatus)}
          >
            {(Object.keys(STATUS_NAMES) as Array<ReviewStatus | "ALL">).map((s) => (
              <option key={s} value={s}>
                {STATUS_NAMES[s]}
              </option>
            ))}
          </select>
        </div>
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
