-- An operator can disable a merchant from the dashboard (issue 16): from then every API key of the
-- merchant answers 401 as an unknown key would (packages/api/src/auth/authenticate.ts), its data
-- stays as it is, and enabling it again (disabled_at back to NULL) brings the same keys back.
ALTER TABLE merchants ADD COLUMN disabled_at timestamptz(3);
