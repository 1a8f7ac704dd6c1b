-- Who did what, for operator and finance actions outside the merchant API (KYC decisions first;
-- the dashboard's actions later). Append-only: rows are never updated or deleted.
CREATE TABLE operator_audit_log (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  actor text NOT NULL,
  action text NOT NULL,
  object_type text NOT NULL,
  object_id text NOT NULL,
  details jsonb NOT NULL DEFAULT '{}'::jsonb,
  created_at timestamptz(3) NOT NULL DEFAULT now()
);
CREATE INDEX operator_audit_log_object ON operator_audit_log (object_type, object_id, created_at);

CREATE FUNCTION operator_audit_log_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'operator_audit_log is append-only' USING ERRCODE = 'check_violation';
END;
$$;
CREATE TRIGGER operator_audit_log_append_only BEFORE UPDATE OR DELETE ON operator_audit_log
  FOR EACH ROW EXECUTE FUNCTION operator_audit_log_append_only();
