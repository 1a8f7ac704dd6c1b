-- Verification submissions (spec 2.3, part 3): one immutable attempt per row. The KYC/KYB payload
-- is stored only as AES-256-GCM ciphertext (packages/encryption) sealed with the row id as
-- associated data; `payload_key_id` names the key, so `payments keys rotate-encryption` can find and
-- re-seal rows of an old key. Nothing else in the row is personal data.
CREATE TABLE verification_submissions (
  id uuid PRIMARY KEY,
  merchant_id uuid NOT NULL REFERENCES merchants (id),
  customer_id uuid NOT NULL REFERENCES customers (id),
  customer_type text NOT NULL CHECK (customer_type IN ('INDIVIDUAL', 'BUSINESS')),
  tier text NOT NULL CHECK (tier IN ('TIER_1', 'TIER_2')),
  -- 1, 2, ... per (customer, tier): the latest attempt is the one with the highest number.
  attempt integer NOT NULL CHECK (attempt >= 1),
  status text NOT NULL
    CHECK (status IN ('DRAFT', 'SUBMITTED', 'PENDING', 'REQUIRES_REVIEW', 'APPROVED', 'REJECTED')),
  rejection_reasons jsonb NOT NULL DEFAULT '[]'::jsonb,
  payload_ciphertext bytea NOT NULL,
  payload_key_id text NOT NULL,
  -- The provider's review, keyed at the provider by this row's id.
  provider_review_id text,
  -- Guards the chain of background jobs that talk to the provider for this row: each job carries
  -- the value it expects and advances it in the same transaction as its effect, so a job that runs
  -- again after a crash finds the value moved on and does nothing.
  provider_checks integer NOT NULL DEFAULT 0,
  submitted_at timestamptz(3),
  completed_at timestamptz(3),
  created_at timestamptz(3) NOT NULL DEFAULT now(),
  updated_at timestamptz(3) NOT NULL DEFAULT now(),
  UNIQUE (customer_id, tier, attempt)
);
CREATE INDEX verification_submissions_customer ON verification_submissions (customer_id, created_at DESC, id DESC);
-- Part 3 rule 2 held by the database too: at most one unresolved attempt per customer and tier.
CREATE UNIQUE INDEX verification_submissions_one_unresolved ON verification_submissions (customer_id, tier)
  WHERE status IN ('DRAFT', 'SUBMITTED', 'PENDING');
-- And at most one approval per customer and tier (an approved tier takes no further attempt).
CREATE UNIQUE INDEX verification_submissions_one_approved ON verification_submissions (customer_id, tier)
  WHERE status = 'APPROVED';
CREATE INDEX verification_submissions_key_id ON verification_submissions (payload_key_id);

-- Part 3 rule 1 (attempts are immutable) as a trigger: what was submitted never changes, the status
-- only moves forward, and a decided attempt keeps its decision. The ciphertext may change only with
-- its key id (re-encryption under a new key; the plaintext is unchanged).
CREATE FUNCTION verification_submissions_guard() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.id <> OLD.id OR NEW.merchant_id <> OLD.merchant_id OR NEW.customer_id <> OLD.customer_id
     OR NEW.customer_type <> OLD.customer_type OR NEW.tier <> OLD.tier OR NEW.attempt <> OLD.attempt
     OR NEW.created_at <> OLD.created_at THEN
    RAISE EXCEPTION 'verification submission % is immutable', OLD.id USING ERRCODE = 'check_violation';
  END IF;
  IF NEW.payload_ciphertext <> OLD.payload_ciphertext AND NEW.payload_key_id = OLD.payload_key_id THEN
    RAISE EXCEPTION 'verification submission % payload is immutable', OLD.id USING ERRCODE = 'check_violation';
  END IF;
  IF NEW.status <> OLD.status AND NOT (
       (OLD.status = 'DRAFT' AND NEW.status = 'SUBMITTED')
    OR (OLD.status = 'SUBMITTED' AND NEW.status IN ('PENDING', 'REQUIRES_REVIEW', 'APPROVED', 'REJECTED'))
    OR (OLD.status = 'PENDING' AND NEW.status IN ('REQUIRES_REVIEW', 'APPROVED', 'REJECTED'))
  ) THEN
    RAISE EXCEPTION 'verification submission % cannot go from % to %', OLD.id, OLD.status, NEW.status
      USING ERRCODE = 'check_violation';
  END IF;
  IF OLD.status IN ('REQUIRES_REVIEW', 'APPROVED', 'REJECTED')
     AND (NEW.rejection_reasons <> OLD.rejection_reasons OR NEW.completed_at IS DISTINCT FROM OLD.completed_at) THEN
    RAISE EXCEPTION 'verification submission % is decided', OLD.id USING ERRCODE = 'check_violation';
  END IF;
  IF OLD.provider_review_id IS NOT NULL AND NEW.provider_review_id IS DISTINCT FROM OLD.provider_review_id THEN
    RAISE EXCEPTION 'verification submission % review id is set', OLD.id USING ERRCODE = 'check_violation';
  END IF;
  RETURN NEW;
END;
$$;
CREATE TRIGGER verification_submissions_guard BEFORE UPDATE ON verification_submissions
  FOR EACH ROW EXECUTE FUNCTION verification_submissions_guard();
