-- The manual KYC provider's review queue (KYC_PROVIDER=manual): one row per verification attempt
-- handed over for review, decided once by an operator (`payments kyc approve|reject|request-review`).
-- The payload is not copied here: it stays sealed in verification_submissions and is opened only by
-- `payments kyc show`.
CREATE TABLE kyc_manual_reviews (
  review_id text PRIMARY KEY,
  submission_id uuid NOT NULL UNIQUE REFERENCES verification_submissions (id),
  profile_id text NOT NULL,
  customer_type text NOT NULL CHECK (customer_type IN ('INDIVIDUAL', 'BUSINESS')),
  tier text NOT NULL CHECK (tier IN ('TIER_1', 'TIER_2')),
  submitted_at timestamptz(3) NOT NULL,
  status text NOT NULL DEFAULT 'PENDING' CHECK (status IN ('PENDING', 'APPROVED', 'REQUIRES_REVIEW', 'REJECTED')),
  reasons jsonb NOT NULL DEFAULT '[]'::jsonb,
  decided_by text,
  decided_at timestamptz(3),
  created_at timestamptz(3) NOT NULL DEFAULT now(),
  -- A decision names who made it and when, and an approval carries no reasons while the others must.
  CHECK ((status = 'PENDING') = (decided_by IS NULL AND decided_at IS NULL)),
  CHECK (status IN ('PENDING', 'APPROVED') OR jsonb_array_length(reasons) > 0)
);
CREATE INDEX kyc_manual_reviews_pending ON kyc_manual_reviews (submitted_at) WHERE status = 'PENDING';

-- Decided once: a decided review never changes again.
CREATE FUNCTION kyc_manual_reviews_guard() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF OLD.status <> 'PENDING' THEN
    RAISE EXCEPTION 'KYC review % is already decided', OLD.review_id USING ERRCODE = 'check_violation';
  END IF;
  RETURN NEW;
END;
$$;
CREATE TRIGGER kyc_manual_reviews_guard BEFORE UPDATE OR DELETE ON kyc_manual_reviews
  FOR EACH ROW EXECUTE FUNCTION kyc_manual_reviews_guard();
